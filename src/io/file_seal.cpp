#include "perfit/io/file_seal.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "perfit/core/error.hpp"
#include "perfit/io/file_identity.hpp"
#include "perfit/io/unique_fd.hpp"

namespace perfit::io {

namespace {

constexpr char kHdf5Signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
constexpr const char* kSealFormat = "perfit-seal 1 crc32=%08" PRIx32 " bytes=%" PRIu64 "\n";

using Fd = UniqueFd;

std::string errno_text() { return std::strerror(errno); }

// SealMemo's state: how many are alive and the identities of the files verified meanwhile.
struct Memo {
  std::mutex m;
  int alive = 0;
  std::set<FileIdentity> verified;
};
Memo& memo() {
  static Memo instance;
  return instance;
}
// CRC-32 of the bytes from kSealBytes to the end; `size` receives the file's size.
std::uint32_t body_crc(int fd, const std::string& path, std::uint64_t& size) {
  constexpr std::size_t kChunk = 256 * 1024;
  const auto buf = std::make_unique_for_overwrite<unsigned char[]>(kChunk);
  std::uint32_t crc = 0;  // libdeflate's CRC-32: zlib's values, at twice its speed
  size = kSealBytes;
  off_t at = static_cast<off_t>(kSealBytes);
  for (;;) {
    const ssize_t n = ::pread(fd, buf.get(), kChunk, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot read '" + path + "': " + errno_text());
    }
    if (n == 0) break;
    crc = libdeflate_crc32(crc, buf.get(), static_cast<std::size_t>(n));
    at += n;
    size += static_cast<std::uint64_t>(n);
  }
  return crc;
}

}  // namespace

void seal_file(const std::string& path) {
  Fd fd(path, O_RDWR);
  if (fd.get() < 0) throw IoError("cannot seal '" + path + "': " + errno_text());
  std::uint64_t size = 0;
  const std::uint32_t crc = body_crc(fd.get(), path, size);
  std::array<char, kSealBytes> block{};
  std::snprintf(block.data(), block.size(), kSealFormat, crc, size);
  if (::pwrite(fd.get(), block.data(), block.size(), 0) != static_cast<ssize_t>(block.size()) ||
      ::fsync(fd.get()) != 0) {
    throw IoError("cannot write '" + path + "': " + errno_text());
  }
  if (::close(fd.release()) != 0) throw IoError("cannot write '" + path + "': " + errno_text());
}

SealState verify_seal(const std::string& path, const std::string& what, std::uint64_t crc_limit) {
  Fd fd(path, O_RDONLY);
  if (fd.get() < 0) throw IoError("cannot read " + what + " '" + path + "': " + errno_text());
  std::array<char, kSealBytes + 1> block{};  // + 1: always NUL-terminated for sscanf
  const ssize_t got = ::pread(fd.get(), block.data(), kSealBytes, 0);
  if (got < 0) throw IoError("cannot read " + what + " '" + path + "': " + errno_text());
  if (got >= 8 && std::memcmp(block.data(), kHdf5Signature, 8) == 0) return SealState::unsealed;
  char signature[8] = {};
  if (::pread(fd.get(), signature, 8, kSealBytes) != 8 ||
      std::memcmp(signature, kHdf5Signature, 8) != 0) {
    // No HDF5 file behind a user block either: what it is, the caller's kind check says.
    if (std::memcmp(block.data(), "perfit-seal", 11) != 0) return SealState::unsealed;
  }
  const std::string fix = "; restore it or write it again";
  std::uint32_t stored_crc = 0;
  std::uint64_t stored_size = 0;
  int used = 0;
  const bool parsed =
      got == static_cast<ssize_t>(kSealBytes) &&
      std::sscanf(block.data(), "perfit-seal 1 crc32=%8" SCNx32 " bytes=%" SCNu64 "\n%n",
                  &stored_crc, &stored_size, &used) == 2 &&
      used > 0;
  if (!parsed) {
    if (got < static_cast<ssize_t>(kSealBytes) &&
        std::memcmp(block.data(), "perfit-seal", 11) == 0) {
      throw DataError(what + " '" + path + "' is truncated (" + std::to_string(got) +
                      " bytes, not even its checksum block)" + fix);
    }
    throw DataError(what + " '" + path + "' is corrupt: its checksum block is damaged" + fix);
  }
  // Every byte of the block is fixed: the seal line as written, then zeros.
  std::array<char, kSealBytes> expect{};
  std::snprintf(expect.data(), expect.size(), kSealFormat, stored_crc, stored_size);
  if (std::memcmp(expect.data(), block.data(), kSealBytes) != 0) {
    throw DataError(what + " '" + path + "' is corrupt: its checksum block is damaged" + fix);
  }
  const auto id = file_identity(fd.get());
  {
    std::lock_guard<std::mutex> lock(memo().m);
    if (id && memo().alive > 0 && memo().verified.count(*id) > 0) return SealState::sealed;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) > crc_limit &&
      static_cast<std::uint64_t>(st.st_size) == stored_size) {
    spdlog::debug(
        "{} '{}': {} bytes, more than {}: its size is checked, not the CRC of every "
        "byte (compressed chunks are checked by zlib as they are read)",
        what, path, st.st_size, crc_limit);
    return SealState::sealed;
  }
  std::uint64_t size = 0;
  const std::uint32_t crc = body_crc(fd.get(), path, size);
  if (size != stored_size) {
    throw DataError(what + " '" + path + "' is " + (size < stored_size ? "truncated" : "corrupt") +
                    ": " + std::to_string(size) + " bytes, written as " +
                    std::to_string(stored_size) + fix);
  }
  if (crc != stored_crc) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "checksum %08" PRIx32 ", written as %08" PRIx32, crc,
                  stored_crc);
    throw DataError(what + " '" + path + "' is corrupt: " + buf + fix);
  }
  std::lock_guard<std::mutex> lock(memo().m);
  if (id && memo().alive > 0) memo().verified.insert(*id);
  return SealState::sealed;
}

SealMemo::SealMemo() {
  std::lock_guard<std::mutex> lock(memo().m);
  ++memo().alive;
}

SealMemo::~SealMemo() {
  std::lock_guard<std::mutex> lock(memo().m);
  if (--memo().alive == 0) memo().verified.clear();
}

}  // namespace perfit::io
