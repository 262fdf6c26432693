#include "perfit/io/read_window.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

// A MiB: the journal's rows, read in the sets' order, take ~14% more bytes than the file
// holds (two ranks' chunks interleave), and a read is a system call per ~300 rows.
constexpr std::uint64_t kBlockBytes = std::uint64_t{1} << 20;
constexpr std::size_t kHead = sizeof(std::uint64_t);  // where the block begins, in the file

}  // namespace

std::string_view ReadWindow::view(std::uint64_t offset, std::uint64_t size,
                                  std::string& window) const {
  if (offset > size_ || size > size_ - offset) {
    throw DataError("bytes " + std::to_string(offset) + ".." + std::to_string(offset + size) +
                    " are past the end of " + what_ + " (" + std::to_string(size_) + " bytes)");
  }
  std::uint64_t from = 0;
  if (window.size() >= kHead) std::memcpy(&from, window.data(), kHead);
  const std::uint64_t held = window.size() >= kHead ? window.size() - kHead : 0;
  if (window.size() < kHead || offset < from || offset - from > held ||
      size > held - (offset - from)) {
    const std::uint64_t n = std::min(std::max(size, kBlockBytes), size_ - offset);
    window.resize(kHead + static_cast<std::size_t>(n));
    std::memcpy(window.data(), &offset, kHead);
    for (std::uint64_t done = 0; done < n;) {
      const ssize_t got =
          ::pread(fd_, window.data() + kHead + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        window.clear();
        throw IoError("cannot read back " + what_ + ": " +
                      (got < 0 ? std::strerror(errno) : "it is shorter than it was"));
      }
      done += static_cast<std::uint64_t>(got);
    }
    from = offset;
  }
  return {window.data() + kHead + (offset - from), static_cast<std::size_t>(size)};
}

}  // namespace perfit::io
