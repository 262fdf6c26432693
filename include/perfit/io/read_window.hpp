// A file's first bytes read back by position through a window: the block of the file last
// read, held in bytes the caller keeps, for readers that go mostly forward. The end of a
// selection over 10^6 sets reads every row and winner's record back from its journal (3.5 GB)
// in the sets' order, nearly the order they were written in. A pread per row and per record
// was 2 * 10^6 system calls (~1.8 s of kernel time); the journal mapped and read in place, the
// first load from each of its pages took 1.8 s of the end's CPU time on a virtual machine
// (perf: the load itself, also with every page mapped ahead); read a MiB at a time, the whole
// journal is copied in ~0.3 s (the end alone 5.8 -> 4.8 s, a resume's replay 5.0 -> 3.2 s).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfit::io {

class ReadWindow {
 public:
  // The first `size` bytes of the open file `fd`, which must outlive this. `what` names the
  // file in errors.
  ReadWindow(int fd, std::uint64_t size, std::string what)
      : fd_(fd), size_(size), what_(std::move(what)) {}

  // Bytes [offset, offset + size): from `window` when the block it holds covers them, else
  // read into it (a MiB from offset, or the range if longer). window: the caller's bytes,
  // one per thread, kept between calls (empty at first; where its block begins, then the
  // block). The view is valid until the next call with the same window.
  // Throws: DataError naming the file for a range past its end; IoError when it cannot be read.
  std::string_view view(std::uint64_t offset, std::uint64_t size, std::string& window) const;
  std::uint64_t size() const { return size_; }

 private:
  int fd_;
  std::uint64_t size_;
  std::string what_;
};

}  // namespace perfit::io
