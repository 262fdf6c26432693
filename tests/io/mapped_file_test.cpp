#include "perfit/io/mapped_file.hpp"

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

// A spill's records read in place equal the ones read back by pread, those still in the
// write buffer when it was mapped included; the mapping ends where the records did.
TEST(MappedFile, ASpillsRecordsInPlaceEqualTheOnesReadBack) {
  testing_support::TempDir dir;
  RecordSpill spill(dir_of(dir));
  std::vector<std::string> records;
  std::vector<RecordSpill::Where> at;
  for (std::size_t i = 0; i < 2500; ++i) {  // ~2.5 MiB: two buffers written, the rest not yet
    records.push_back(std::string(i % 5 == 0 ? 3000 : 700, static_cast<char>('a' + i % 26)) +
                      std::to_string(i));
    at.push_back(spill.append(records.back()));
  }
  at.push_back(spill.append(""));
  records.emplace_back();
  const MappedFile map = spill.map();
  EXPECT_EQ(map.size(), at.back().offset);
  for (std::size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(map.view(at[i].offset, at[i].size), records[i]) << i;
    ASSERT_EQ(map.view(at[i].offset, at[i].size), spill.read(at[i])) << i;
  }
}

// A range past the mapped end is refused by name, also one whose end wraps around; an empty
// file maps to no bytes.
TEST(MappedFile, RangesPastTheEndAreRefused) {
  testing_support::TempDir dir;
  RecordSpill spill(dir_of(dir));
  const MappedFile empty = spill.map();
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_EQ(empty.view(0, 0), "");
  const RecordSpill::Where w = spill.append("0123456789");
  MappedFile map = spill.map();
  EXPECT_EQ(map.view(w.offset + 2, 3), "234");
  EXPECT_EQ(map.view(10, 0), "");
  // Not a structured binding: lambdas cannot capture those before clang 16.
  for (const auto& range : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, 11}, {11, 0}, {5, ~std::uint64_t{0}}, {~std::uint64_t{0}, 2}}) {
    EXPECT_THAT([&] { (void)map.view(range.first, range.second); },
                testing::ThrowsMessage<DataError>(testing::HasSubstr("a temporary file in")))
        << range.first << " " << range.second;
  }
  const MappedFile moved = std::move(map);
  EXPECT_EQ(moved.view(0, 4), "0123");
}

}  // namespace perfit::io
