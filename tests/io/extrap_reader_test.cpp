#include "perfit/io/extrap_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

TEST(ExtrapReader, OneSetPerRegionAndMetricWithARowPerRepetition) {
  testing_support::TempDir dir;
  const auto sets = read_extrap_text(dir.write("a.txt",
                                               "# comment\n"
                                               "PARAMETER p\n"
                                               "POINTS 2 4\nPOINTS 8\n"
                                               "REGION solve\nMETRIC time\n"
                                               "DATA 1.0 1.2\nDATA 2.0\nDATA 3 3.5 4\n"
                                               "METRIC bytes\nDATA 10\nDATA 20\n"));
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].region, "solve");
  EXPECT_EQ(sets[0].metric, "time");
  EXPECT_EQ(sets[0].table.column("p").f64(), (std::vector<double>{2, 2, 4, 8, 8, 8}));
  EXPECT_EQ(sets[0].table.column("value").f64(), (std::vector<double>{1.0, 1.2, 2.0, 3, 3.5, 4}));
  EXPECT_EQ(sets[1].metric, "bytes");
  EXPECT_EQ(sets[1].table.column("p").f64(),
            (std::vector<double>{2, 4}));  // DATA restarts at the first point
}

TEST(ExtrapReader, SeveralParametersTakeParenthesisedPoints) {
  testing_support::TempDir dir;
  const auto sets =
      read_extrap_text(dir.write("b.txt",
                                 "PARAMETER p n\nPOINTS ( 2 100 ) ( 4 100 )\nPOINTS (8 200)\n"
                                 "DATA 1\nDATA 2 2.5\nDATA 3\n"));
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].region, "");
  EXPECT_EQ(sets[0].table.column("n").f64(), (std::vector<double>{100, 100, 100, 200}));
  EXPECT_EQ(sets[0].table.column("p").f64(), (std::vector<double>{2, 4, 4, 8}));
}

TEST(ExtrapReader, EachSetIsHandedOverWhenTheNextBegins) {
  testing_support::TempDir dir;
  std::vector<std::string> seen;
  const std::string path = dir.write("s.txt",
                                     "PARAMETER p\nPOINTS 2 4\n"
                                     "REGION a\nDATA 1\nDATA +2 3e0\n"
                                     "REGION b\nDATA 4\nDATA x\n");
  EXPECT_THAT(
      [&] {
        for_each_extrap_text_set(path, [&](ExtrapSet&& s) {
          seen.push_back(s.region);
          EXPECT_EQ(s.table.column("value").f64(), (std::vector<double>{1, 2, 3}));
        });
      },
      testing::ThrowsMessage<DataError>(testing::HasSubstr("line 8: found 'x'")));
  EXPECT_EQ(seen, (std::vector<std::string>{"a"}));  // a was complete before b's bad line
}

TEST(ExtrapReader, BadInputNamesTheLine) {
  testing_support::TempDir dir;
  const auto fails = [&](const std::string& text, const std::string& needle) {
    EXPECT_THAT([&] { read_extrap_text(dir.write("bad.txt", text)); },
                testing::ThrowsMessage<DataError>(testing::HasSubstr(needle)))
        << text;
  };
  fails("PARAMETER p\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n",
        "line 5: more DATA lines (3) than POINTS (2)");
  fails("PARAMETER p\nPOINTS 1 x\n", "line 2: found 'x', expected a number");
  fails("PARAMETER p\nPOINTS 1\nDATA 1e999\n", "line 3: found '1e999', expected a number");
  fails("PARAMETER p\nPOINTS 1\nDATA 1.5.2\n", "found '1.5.2', expected a number");
  fails("PARAMETER p\nPOINTS 1\nDATA +-1\n", "found '+-1', expected a number");
  fails("PARAMETER p q\nPOINTS ( 1 ) ( 2 3 )\n", "a point of 1 values, expected 2");
  fails("PARAMETER p\nPOINTS 1\nPARAMETER q\n", "PARAMETER after POINTS");
  fails("POINTS 1 2\n", "POINTS before any PARAMETER");
  fails("PARAMETER a b c d e\n", "more than 4 parameters");
  fails("PARAMETER p\nPOINTS 1\nVALUES 3\n", "unknown field 'VALUES'");
  fails("PARAMETER p\nPOINTS 1\n", "no DATA lines");
  EXPECT_THROW(read_extrap_text(dir.file("missing.txt")), IoError);
}

}  // namespace perfit::io
