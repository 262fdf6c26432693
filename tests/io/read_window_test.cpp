#include "perfit/io/read_window.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "perfit/core/error.hpp"
#include "perfit/io/record_spill.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

namespace {

std::string dir_of(const testing_support::TempDir& dir) {
  return std::filesystem::path(dir.file("x")).parent_path().string();
}

}  // namespace

// A spill's records read through windows equal the ones read back by pread, those still in
// the write buffer when the reader was made included, in any order: forward, backward, a
// record longer than a block, and two windows read in turn.
TEST(ReadWindow, ASpillsRecordsReadThroughWindowsEqualTheOnesReadBack) {
  testing_support::TempDir dir;
  RecordSpill spill(dir_of(dir));
  std::vector<std::string> records;
  std::vector<RecordSpill::Where> at;
  for (std::size_t i = 0; i < 2500; ++i) {  // ~2.5 MiB: two buffers written, the rest not yet
    records.push_back(std::string(i % 5 == 0 ? 3000 : 700, static_cast<char>('a' + i % 26)) +
                      std::to_string(i));
    at.push_back(spill.append(records.back()));
  }
  records.push_back(std::string((std::size_t{3} << 20) / 2, 'z'));  // 1.5 MiB: past a block
  at.push_back(spill.append(records.back()));
  at.push_back(spill.append(""));
  records.emplace_back();
  const ReadWindow reader = spill.reader();
  EXPECT_EQ(reader.size(), at.back().offset);
  std::string forward, backward;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::size_t j = records.size() - 1 - i;
    ASSERT_EQ(reader.view(at[i].offset, at[i].size, forward), records[i]) << i;
    ASSERT_EQ(reader.view(at[j].offset, at[j].size, backward), records[j]) << j;
    ASSERT_EQ(reader.view(at[i].offset, at[i].size, forward), spill.read(at[i])) << i;
  }
}

// A range past the end is refused by name, also one whose end wraps around, and the window
// still reads what is there; an empty file holds no bytes.
TEST(ReadWindow, RangesPastTheEndAreRefused) {
  testing_support::TempDir dir;
  RecordSpill spill(dir_of(dir));
  std::string window;
  const ReadWindow empty = spill.reader();
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_EQ(empty.view(0, 0, window), "");
  const RecordSpill::Where w = spill.append("0123456789");
  const ReadWindow reader = spill.reader();
  EXPECT_EQ(reader.view(w.offset + 2, 3, window), "234");
  EXPECT_EQ(reader.view(10, 0, window), "");
  // Not a structured binding: lambdas cannot capture those before clang 16.
  for (const auto& range : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, 11}, {11, 0}, {5, ~std::uint64_t{0}}, {~std::uint64_t{0}, 2}}) {
    EXPECT_THAT([&] { (void)reader.view(range.first, range.second, window); },
                testing::ThrowsMessage<DataError>(testing::HasSubstr("a temporary file in")))
        << range.first << " " << range.second;
  }
  EXPECT_EQ(reader.view(0, 4, window), "0123");
}

// A file cut short under the reader (another process truncated it) is an error naming it,
// not bytes of a block that is not there.
TEST(ReadWindow, AFileShorterThanItWasIsAnError) {
  testing_support::TempDir dir;
  const std::string path = dir.file("journal");
  RecordSpill spill = RecordSpill::named(path);
  spill.append(std::string(4096, 'x'));
  const ReadWindow reader = spill.reader();
  std::filesystem::resize_file(path, 100);
  std::string window;
  EXPECT_THAT([&] { (void)reader.view(200, 10, window); },
              testing::ThrowsMessage<IoError>(testing::HasSubstr("shorter than it was")));
}

}  // namespace perfit::io
