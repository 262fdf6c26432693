#include "perfit/io/record_spill.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

TEST(RecordSpill, RecordsComeBackByPositionAndLeaveNoFile) {
  testing_support::TempDir dir;
  const std::filesystem::path where = std::filesystem::path(dir.file("x")).parent_path();
  std::vector<RecordSpill::Where> at;
  const std::vector<std::string> records = {"first", "", std::string(1 << 20, '\0') + "end",
                                            "last"};
  {
    RecordSpill spill(where.string());
    for (const auto& r : records) at.push_back(spill.append(r));
    for (std::size_t i = records.size(); i-- > 0;) EXPECT_EQ(spill.read(at[i]), records[i]) << i;
    EXPECT_TRUE(std::filesystem::is_empty(where));  // no name in the directory while it lives
  }
  EXPECT_TRUE(std::filesystem::is_empty(where));
  EXPECT_THAT(
      [] { RecordSpill("/nonexistent/perfit-spill-dir"); },
      testing::ThrowsMessage<IoError>(testing::HasSubstr("'/nonexistent/perfit-spill-dir'")));
}

// Records still in the write buffer, across its flushes and read between appends come back
// the same as records already in the file.
TEST(RecordSpill, ReadsBetweenAppendsAcrossTheBuffer) {
  testing_support::TempDir dir;
  RecordSpill spill(std::filesystem::path(dir.file("x")).parent_path().string());
  std::vector<std::string> records;
  std::vector<RecordSpill::Where> at;
  for (std::size_t i = 0; i < 3000; ++i) {  // about 3 MiB: the buffer fills and flushes
    records.push_back(std::string(i % 7 == 0 ? 4000 : 600, static_cast<char>('a' + i % 26)) +
                      std::to_string(i));
    at.push_back(spill.append(records.back()));
    if (i % 500 == 3) {
      ASSERT_EQ(spill.read(at[i]), records[i]) << i;  // the newest, still buffered
      ASSERT_EQ(spill.read(at[i / 2]), records[i / 2]) << i;
    }
  }
  for (std::size_t i = 0; i < records.size(); ++i) ASSERT_EQ(spill.read(at[i]), records[i]) << i;
}

}  // namespace perfit::io
