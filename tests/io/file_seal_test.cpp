#include "perfit/io/file_seal.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "perfit/core/error.hpp"
#include "perfit/io/checkpoint_file.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_bytes(const std::string& path, const std::string& b) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << b;
}

Checkpoint small_checkpoint() {
  Checkpoint c;
  c.config_yaml = "seed: 1\n";
  c.model_yaml = "name: m\n";
  c.data_file = "d.h5";
  c.set = "/a/b";
  c.data_checksum = "00";
  c.perfit_version = "test";
  c.created_utc = "2026-12-01T00:00:00Z";
  c.job.epochs_done = 3;
  c.job.history = {3.0, 2.0, 1.0};
  c.islands = {{1, 2, 3, 4}, {5, 6}};
  return c;
}

}  // namespace

TEST(FileSeal, ASealedFileVerifiesAndStaysReadableHdf5) {
  testing_support::TempDir dir;
  const std::string path = dir.file("c.h5");
  write_checkpoint(path, small_checkpoint());
  EXPECT_EQ(bytes_of(path).rfind("perfit-seal 1 crc32=", 0), 0u);
  EXPECT_EQ(verify_seal(path, "checkpoint"), SealState::sealed);
  const Checkpoint back = read_checkpoint(path);
  EXPECT_EQ(back.islands, small_checkpoint().islands);
  EXPECT_EQ(back.job.history, small_checkpoint().job.history);
}

// Every single flipped byte, in the seal, in HDF5's metadata or in the raw data, is refused.
TEST(FileSeal, EveryFlippedByteIsRefused) {
  testing_support::TempDir dir;
  const std::string path = dir.file("c.h5");
  write_checkpoint(path, small_checkpoint());
  const std::string good = bytes_of(path);
  const std::string bad = dir.file("bad.h5");
  for (std::size_t at = 0; at < good.size(); ++at) {
    std::string b = good;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    put_bytes(bad, b);
    EXPECT_THROW(verify_seal(bad, "checkpoint"), DataError)
        << "byte " << at << " of " << good.size();
  }
}

TEST(FileSeal, TruncatedFilesAreRefusedWithTheirSize) {
  testing_support::TempDir dir;
  const std::string path = dir.file("c.h5");
  write_checkpoint(path, small_checkpoint());
  const std::string good = bytes_of(path);
  const std::string bad = dir.file("bad.h5");
  for (std::size_t keep : {std::size_t{0}, std::size_t{100}, kSealBytes, kSealBytes + 8,
                           good.size() / 2, good.size() - 1}) {
    put_bytes(bad, good.substr(0, keep));
    if (keep == 0) {
      EXPECT_EQ(verify_seal(bad, "checkpoint"),
                SealState::unsealed);  // empty: the kind check names it
      EXPECT_THROW(read_checkpoint(bad), Error);
      continue;
    }
    EXPECT_THAT([&] { verify_seal(bad, "checkpoint"); },
                ThrowsMessage<DataError>(HasSubstr("checkpoint '" + bad + "' is truncated")))
        << keep;
    EXPECT_THROW(read_checkpoint(bad), DataError) << keep;
  }
}

TEST(FileSeal, UnsealedHdf5FilesAreReadAsBefore) {
  testing_support::TempDir dir;
  const std::string path = dir.file("plain.h5");
  StoreWriter w(path);
  w.write_root_attribute("x", std::string("y"));
  w.close();
  EXPECT_EQ(verify_seal(path, "result file"), SealState::unsealed);
}

TEST(FileSeal, AMissingFileIsAnIoError) {
  testing_support::TempDir dir;
  EXPECT_THROW(verify_seal(dir.file("none.h5"), "checkpoint"), IoError);
}

}  // namespace perfit::io

namespace perfit::io {

// A byte flipped in place with the modification time put back: same device, inode, size and
// mtime. Only a SealMemo (alive) lets it pass, since the file verified before; a file replaced
// by rename is a new inode and is checked again.
TEST(FileSeal, AMemoChecksAFileOnceWhileItsIdentityIsUnchanged) {
  testing_support::TempDir dir;
  const std::string path = dir.file("c.h5"), other = dir.file("d.h5");
  write_checkpoint(path, small_checkpoint());
  auto flip_keeping_mtime = [](const std::string& p) {
    const auto when = fs::last_write_time(p);
    std::string b = bytes_of(p);
    b[b.size() - 9] ^= 0x20;
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(b.size() - 9));
    f.put(b[b.size() - 9]);
    f.close();
    fs::last_write_time(p, when);
  };
  {
    const SealMemo memo;
    EXPECT_EQ(verify_seal(path, "checkpoint"), SealState::sealed);
    flip_keeping_mtime(path);
    EXPECT_EQ(verify_seal(path, "checkpoint"), SealState::sealed);  // not read again
    write_checkpoint(other, small_checkpoint());
    fs::rename(other, path);  // a new inode: checked again, and whole
    EXPECT_EQ(verify_seal(path, "checkpoint"), SealState::sealed);
    flip_keeping_mtime(path);
    EXPECT_EQ(verify_seal(path, "checkpoint"), SealState::sealed);
  }
  EXPECT_THROW((void)verify_seal(path, "checkpoint"), DataError);  // no memo: every byte read
}

}  // namespace perfit::io
