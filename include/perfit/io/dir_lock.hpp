// One writer per directory: `perfit batch` holds DIR/.lock (host and pid) while it runs, so a
// second batch on the same results directory is refused instead of interleaving its files.
// A lock left by a process that no longer exists on this host (kill -9, node crash and
// reboot) is taken over; one from another host cannot be checked and is reported instead.
#pragma once

#include <string>

namespace perfit::io {

class DirLock {
 public:
  // Throws: ConfigError naming the holder (host, pid, since) when the lock is live or cannot be
  // checked; IoError when the lock file cannot be created.
  DirLock(const std::string& dir, const std::string& what);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace perfit::io
