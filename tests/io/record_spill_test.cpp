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

}  // namespace perfit::io
