#include "perfit/io/dir_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "perfit/core/error.hpp"
#include "perfit/core/utc_time.hpp"
#include "process_gone.hpp"

namespace perfit::io {

namespace {

std::string this_host() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

struct Holder {
  std::string host, since;
  long pid = 0;
};

Holder read_holder(const std::string& path) {
  std::ifstream in(path);
  Holder h;
  std::string key;
  while (in >> key) {
    if (key == "host") in >> h.host;
    if (key == "pid") in >> h.pid;
    if (key == "since") in >> h.since;
  }
  return h;
}

}  // namespace

DirLock::DirLock(const std::string& dir, const std::string& what)
    : path_((std::filesystem::path(dir) / ".lock").string()) {
  const std::string host = this_host();
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      std::ostringstream text;
      text << "host " << host << "\npid " << ::getpid() << "\nsince " << utc_now() << "\n";
      const std::string s = text.str();
      const bool ok = ::write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size());
      ::close(fd);
      if (!ok) {
        ::unlink(path_.c_str());
        throw IoError("cannot write lock file '" + path_ + "': " + std::strerror(errno));
      }
      return;
    }
    if (errno != EEXIST)
      throw IoError("cannot create lock file '" + path_ + "': " + std::strerror(errno));
    const Holder h = read_holder(path_);
    if (h.host == host && (h.pid == ::getpid() || !detail::process_gone(h.pid))) {
      throw ConfigError("'" + dir + "' is in use by another " + what + " (host " + h.host +
                        ", pid " + std::to_string(h.pid) + ", since " + h.since + "; lock file '" +
                        path_ + "'); wait for it to end or use another directory");
    }
    if (h.host != host && !h.host.empty()) {
      throw ConfigError("'" + dir + "' is locked by a " + what + " on host " + h.host + " (pid " +
                        std::to_string(h.pid) + ", since " + h.since +
                        "), which this host cannot "
                        "check; if that job has ended, remove '" +
                        path_ + "' and run again");
    }
    // Left by a process that is gone (or an empty, half-written lock): take it over.
    ::unlink(path_.c_str());
  }
  throw ConfigError("'" + dir + "': another " + what + " took the lock '" + path_ +
                    "' at the same time");
}

DirLock::~DirLock() { ::unlink(path_.c_str()); }

}  // namespace perfit::io
