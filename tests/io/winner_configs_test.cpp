#include "perfit/io/winner_configs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfit/core/error.hpp"

namespace perfit::io {

TEST(WinnerConfigs, TheSetIsFoundOnItsLineElseAnywhereElseNowhere) {
  EXPECT_EQ(set_offset("set: \"/a\"\nout: \"/a\"\n", "/a"), 6);
  // Its line, though the set is in an earlier one too.
  EXPECT_EQ(set_offset("data: \"/a.h5\"\nset: \"/a\"\n", "/a"), 20);
  // A longer set on the line: not this one; found where it is, or not at all.
  EXPECT_EQ(set_offset("data: \"/a\"\nset: \"/ab\"\n", "/a"), 7);
  EXPECT_EQ(set_offset("set: \"/a\\\"q\"\n", "/a\"q"), -1);
  EXPECT_EQ(set_offset("seed: 1\n", ""), -1);
}

TEST(WinnerConfigs, EachDistinctOneOnceEachWinnerItsOwnBack) {
  WinnerConfigs c;
  const auto config = [](const std::string& set, int seed) {
    return "set: \"" + set + "\"\nseed: " + std::to_string(seed) + "\n";
  };
  EXPECT_EQ(c.add(config("/a", 1), "/a"), 0u);
  EXPECT_EQ(c.add(config("/b", 2), "/b"), 1u);
  EXPECT_EQ(c.add(config("/ccc", 1), "/ccc"), 0u);  // not the last one found: looked up
  EXPECT_EQ(c.add("seed: 3\n", "/d"), 2u);          // no set in it: kept whole
  EXPECT_EQ(c.add("seed: 3\n", "/e"), 2u);
  EXPECT_EQ(c.config(0, "/zz", "here"), config("/zz", 1));
  EXPECT_EQ(c.config(2, "/zz", "here"), "seed: 3\n");
  // Read back as the store holds them, a row of another's added as it is.
  const WinnerConfigs read(c.table(), "here");
  EXPECT_EQ(read.config(1, "/b", "here"), config("/b", 2));
  WinnerConfigs all;
  EXPECT_EQ(all.add(read.entries()[1]), 0u);
  EXPECT_EQ(all.add(config("/q", 2), "/q"), 0u);
}

TEST(WinnerConfigs, RowsAndOffsetsNotThereAreRefusedNamingTheFile) {
  WinnerConfigs c;
  c.add("set: \"/a\"\n", "/a");
  EXPECT_THAT([&] { c.config(1, "/a", "'s.h5' set '/a'"); },
              testing::ThrowsMessage<DataError>(testing::HasSubstr(
                  "'s.h5' set '/a': config_index 1, expected 0 .. 0 (the rows of /configs)")));
  EXPECT_THROW(c.config(-1, "/a", "x"), DataError);
  data::MeasurementTable t = c.table();
  t.columns()[1].i64()[0] = 99;
  EXPECT_THAT([&] { WinnerConfigs(t, "'s.h5' /configs"); },
              testing::ThrowsMessage<DataError>(testing::HasSubstr(
                  "'s.h5' /configs row 0: set_at 99, expected -1 .. 8 (its text's length)")));
  data::MeasurementTable no_offsets;
  no_offsets.add_column(t.columns()[0]);
  EXPECT_THAT([&] { WinnerConfigs(no_offsets, "'s.h5' /configs"); },
              testing::ThrowsMessage<DataError>(
                  testing::HasSubstr("'s.h5' /configs has no integer column 'set_at'")));
}

}  // namespace perfit::io
