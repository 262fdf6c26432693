#include "perfit/io/mapped_file.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "perfit/core/error.hpp"

namespace perfit::io {

MappedFile::MappedFile(int fd, std::uint64_t size, std::string what)
    : size_(size), what_(std::move(what)) {
  if (size_ == 0) return;
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    throw IoError("cannot map " + what_ + " to read it back: " + std::strerror(errno));
  data_ = p;
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      what_(std::move(o.what_)) {}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

std::string_view MappedFile::view(std::uint64_t offset, std::uint64_t size) const {
  if (offset > size_ || size > size_ - offset) {
    throw DataError("bytes " + std::to_string(offset) + ".." + std::to_string(offset + size) +
                    " are past the end of " + what_ + " (" + std::to_string(size_) + " bytes)");
  }
  return {static_cast<const char*>(data_) + offset, static_cast<std::size_t>(size)};
}

}  // namespace perfit::io
