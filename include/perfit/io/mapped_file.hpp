// A file's first bytes mapped read-only, unmapped when it goes. The end of a selection over
// 10^6 sets reads every row and winner's record back from its journal (3.6 GB): a pread per
// row and per record was 2 * 10^6 system calls, ~1.8 s of kernel time of the ~10 s that the
// other ranks wait for; read in place, a record is a copy from the page cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfit::io {

class MappedFile {
 public:
  // The first `size` bytes of the open file `fd` (which may close after). `what` names the
  // file in errors. Throws: IoError when the kernel refuses the mapping.
  MappedFile(int fd, std::uint64_t size, std::string what);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile& operator=(MappedFile&&) = delete;
  ~MappedFile();

  // Bytes [offset, offset + size) in place: valid while this lives.
  // Throws: DataError naming the file for a range past its mapped end.
  std::string_view view(std::uint64_t offset, std::uint64_t size) const;
  std::uint64_t size() const { return size_; }

 private:
  void* data_ = nullptr;  // nullptr for an empty file (mmap refuses a length of 0)
  std::uint64_t size_ = 0;
  std::string what_;
};

}  // namespace perfit::io
