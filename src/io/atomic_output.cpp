#include "perfit/io/atomic_output.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace fs = std::filesystem;

AtomicOutput::AtomicOutput(std::string target) : target_(std::move(target)) {
  const fs::path t(target_);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw IoError("cannot write '" + target_ + "': directory '" + dir.string() +
                  "' does not exist. Create it first");
  }
  if (fs::is_directory(t, ec)) {
    throw IoError("cannot write '" + target_ + "': it is a directory, expected a file name");
  }
  static std::atomic<int> counter{0};
  temp_ = (dir / ("." + t.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter++)))
              .string();
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    throw IoError("cannot rename '" + temp_ + "' to '" + target_ + "': " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace perfit::io
