// Whether a process of this host that wrote a lock or a temporary file is gone: no such
// process, or a zombie (killed with its job, not yet reaped by a parent that was killed too),
// which holds nothing any more.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace perfit::io::detail {

inline bool process_gone(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t name_end = line.rfind(')');  // the state follows the command name
  return name_end != std::string::npos && name_end + 2 < line.size() &&
         (line[name_end + 2] == 'Z' || line[name_end + 2] == 'X');
}

}  // namespace perfit::io::detail
