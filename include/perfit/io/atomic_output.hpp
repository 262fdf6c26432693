// Output files appear whole or not at all: write to a temporary file beside the target,
// then rename over it. An error, SIGTERM or SIGINT leaves the old file untouched and removes
// the temporary file; only a kill -9 can leave one (.NAME.tmp-HOST-PID-N), and the next
// write of the same output removes those whose process no longer exists on this host.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>

#include "perfit/core/error.hpp"

namespace perfit::io {

class AtomicOutput {
 public:
  // Throws: IoError if the target's directory does not exist or the target is a directory.
  explicit AtomicOutput(std::string target);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();  // removes the temporary file unless committed

  const std::string& target() const { return target_; }
  // Renames the temporary file onto the target. Throws: IoError naming the target.
  void commit();
  // Runs write(the temporary path). A perfit::Error from write is rethrown with the same exit
  // code and the target's name in place of the temporary one. commit() makes it the target.
  template <class Write>
  void write(Write&& write) {
    try {
      write(temp_);
    } catch (const Error& e) {
      rethrow_naming_target(e);
    }
  }
  // write(), then commit().
  template <class Write>
  void write_and_commit(Write&& w) {
    write(std::forward<Write>(w));
    commit();
  }

 private:
  [[noreturn]] void rethrow_naming_target(const Error& e) const;

  std::string target_;
  std::string temp_;
  int slot_ = -1;  // in the registry the signal handler cleans up
  bool committed_ = false;
};

// The whole of `text` as the file `path`, through an AtomicOutput. Throws: IoError naming the
// file (disk full, no permission, a missing directory).
void write_text_file(const std::string& path, const std::string& text);
// The same, the text streamed by write (a text too large to build first).
void write_text_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// Removes every temporary file of a live AtomicOutput (async-signal-safe): the cleanup that
// core/interrupt runs before a signal ends the process.
void remove_temp_files_now();

}  // namespace perfit::io
