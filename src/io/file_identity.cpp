#include "perfit/io/file_identity.hpp"

#include <sys/stat.h>

namespace perfit::io {

namespace {

FileIdentity from_stat(const struct stat& st) {
  return {static_cast<std::int64_t>(st.st_dev), static_cast<std::int64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_size), static_cast<std::int64_t>(st.st_mtim.tv_sec),
          static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
}

}  // namespace

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return from_stat(st);
}

std::optional<FileIdentity> file_identity(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return from_stat(st);
}

}  // namespace perfit::io
