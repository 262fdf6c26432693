// Output files appear whole or not at all: write to a temporary file beside the target,
// then rename over it. A crash, an error or SIGTERM leaves the old file untouched.
#pragma once

#include <string>

namespace perfit::io {

class AtomicOutput {
 public:
  // Throws: IoError if the target's directory does not exist or the target is a directory.
  explicit AtomicOutput(std::string target);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();  // removes the temporary file unless committed

  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  // Renames the temporary file onto the target. Throws: IoError.
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

}  // namespace perfit::io
