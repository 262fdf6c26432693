// Which version of a file this is: device, inode, size and modification time. A file rewritten
// or replaced has another identity, so memos keyed by it never serve stale contents.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace perfit::io {

struct FileIdentity {
  std::int64_t device = 0, inode = 0, size = 0, mtime_sec = 0, mtime_nsec = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

// nullopt when the file cannot be stat'ed (then nothing may be memoized for it).
std::optional<FileIdentity> file_identity(const std::string& path);
std::optional<FileIdentity> file_identity(int fd);

}  // namespace perfit::io
