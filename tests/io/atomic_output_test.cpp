#include "perfit/io/atomic_output.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "perfit/io/output_guard.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

namespace fs = std::filesystem;

TEST(AtomicOutput, AFailedWriteNamesTheTargetAndLeavesNoTemporaryFile) {
  testing_support::TempDir dir;
  const std::string target = dir.file("r.h5");
  std::string temp;
  try {
    AtomicOutput out(target);
    out.write_and_commit([&](const std::string& t) {
      temp = t;
      std::ofstream(t) << "half";
      throw IoError("writing '" + t + "' failed (disk full?)");
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 6);
    EXPECT_THAT(e.what(), HasSubstr("writing '" + target + "' failed"));
    EXPECT_THAT(e.what(), Not(HasSubstr(".tmp-")));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(target));
}

TEST(AtomicOutput, RemovesTemporaryFilesOfDeadProcessesOnly) {
  testing_support::TempDir dir;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string h = std::string(host).substr(0, std::string(host).find('.'));
  const std::string dead = dir.file(".r.h5.tmp-" + h + "-999999999-0");
  const std::string alive = dir.file(".r.h5.tmp-" + h + "-1-0");  // pid 1 always exists
  std::ofstream(dead) << "x";
  std::ofstream(alive) << "x";
  {
    AtomicOutput out(dir.file("r.h5"));
    out.write_and_commit([](const std::string& t) { std::ofstream(t) << "whole"; });
  }
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(dir.file("r.h5")));
}

TEST(OutputGuard, ResolvesLinksAndRefusesOtherKindsAndSameKindWithoutForce) {
  testing_support::TempDir dir;
  const std::string csv = dir.file("a.csv");
  std::ofstream(csv) << "p,time_s\n1,2\n";
  fs::create_symlink(csv, dir.file("link.csv"));
  EXPECT_TRUE(same_file(dir.file("link.csv"), csv));
  EXPECT_TRUE(same_file(dir.file("./a.csv"), csv));
  EXPECT_THAT(
      [&] {
        check_output({dir.file("link.csv"), "--out", FileKind::predictions, {csv}, false});
      },
      ThrowsMessage<ConfigError>(HasSubstr("is the input")));
  EXPECT_THAT(
      [&] {
        check_output({csv, "--out", FileKind::predictions, {}, true});
      },
      ThrowsMessage<ConfigError>(HasSubstr("never replaces another kind")));
  std::ofstream(dir.file("p.csv")) << "p,predicted_time_s\n1,2\n";
  EXPECT_EQ(detect_file_kind(dir.file("p.csv")), FileKind::predictions);
  EXPECT_THAT(
      [&] {
        check_output({dir.file("p.csv"), "--out", FileKind::predictions, {}, false});
      },
      ThrowsMessage<ConfigError>(HasSubstr("pass --force")));
  EXPECT_NO_THROW(check_output({dir.file("p.csv"), "--out", FileKind::predictions, {}, true}));
  EXPECT_THAT(
      [&] {
        check_output({dir.file("no/x.csv"), "--out", FileKind::predictions, {}, false});
      },
      ThrowsMessage<IoError>(HasSubstr("does not exist")));
}

}  // namespace perfit::io
