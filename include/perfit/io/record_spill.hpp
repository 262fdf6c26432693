// Records (bytes) appended to a file and read back by position, so that a process holds where
// each record is rather than the records: world rank 0 of a selection over 10^5 sets keeps
// every winner until it writes them (540 MB at 200,000 winners). The file has no name
// (O_TMPFILE): it is gone when the process ends, however it ends, and the kernel keeps its
// pages cached while memory allows; or it is a new file at a path (named()), whose records
// outlive the process (a journal).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perfit/io/read_window.hpp"
#include "perfit/io/unique_fd.hpp"

namespace perfit::io {

class RecordSpill {
 public:
  struct Where {
    std::uint64_t offset = 0, size = 0;
  };
  // A new spill in dir. Throws: IoError naming dir when no file can be made there.
  explicit RecordSpill(const std::string& dir);
  // A new file at path (an existing one is refused). Throws: IoError naming path.
  static RecordSpill named(const std::string& path);
  // The file at path, its first `keep` bytes kept (the rest cut off) and records appended
  // after them. Throws: IoError naming path.
  static RecordSpill existing(const std::string& path, std::uint64_t keep);
  // Throws: IoError (disk full), here or at a later append or read.
  Where append(std::string_view bytes);
  std::uint64_t end() const { return end_; }  // where the next record goes
  // Throws: IoError. Reads on several threads at once only after flush(), with no append
  // since.
  std::string read(Where w) const;
  // Every record appended so far to the file. Throws: IoError (disk full).
  void flush() const;
  // Every record appended so far, flushed: read back by position through windows
  // (view(w.offset, w.size, window), a window per thread), while no record is appended.
  // Throws: IoError (disk full).
  ReadWindow reader() const;

 private:
  RecordSpill(std::string what, UniqueFd fd, std::uint64_t end = 0)
      : what_(std::move(what)), fd_(std::move(fd)), end_(end), written_(end) {}

  // Appends are written 1 MiB at a time: a write per winner was 5% of a selection over 10^6
  // small sets.
  static constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

  std::string what_;  // the file, as errors name it
  UniqueFd fd_;
  std::uint64_t end_ = 0;              // of the records appended
  mutable std::uint64_t written_ = 0;  // of those in the file
  mutable std::string buffer_;         // the rest
};

}  // namespace perfit::io
