#include "perfit/io/record_spill.hpp"

#include <cerrno>
#include <cstring>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

// An unnamed file in dir; where the file system cannot (O_TMPFILE is refused), a named one
// removed at once.
UniqueFd unnamed_file(const std::string& dir) {
  UniqueFd fd(dir, O_TMPFILE | O_RDWR);
  if (fd.get() >= 0) return fd;
  std::string name = dir + "/.perfit-spill-XXXXXX";
  const int raw = ::mkostemp(name.data(), O_CLOEXEC);
  if (raw < 0) {
    throw IoError("cannot make a temporary file in '" + dir + "' (" + std::strerror(errno) +
                  "): a selection over many sets keeps its winners there until it writes them");
  }
  ::unlink(name.c_str());
  UniqueFd named("/proc/self/fd/" + std::to_string(raw), O_RDWR);
  ::close(raw);
  if (named.get() < 0)
    throw IoError("cannot reopen a temporary file in '" + dir + "': " + std::strerror(errno));
  return named;
}

}  // namespace

RecordSpill::RecordSpill(const std::string& dir)
    : what_("a temporary file in '" + dir + "'"), fd_(unnamed_file(dir)) {}

RecordSpill RecordSpill::named(const std::string& path) {
  UniqueFd fd(path, O_RDWR | O_CREAT | O_EXCL, 0666);  // as any file perfit writes: umask applies
  if (fd.get() < 0) throw IoError("cannot make '" + path + "': " + std::strerror(errno));
  return RecordSpill("'" + path + "'", std::move(fd));
}

RecordSpill RecordSpill::existing(const std::string& path, std::uint64_t keep) {
  UniqueFd fd(path, O_RDWR);
  if (fd.get() < 0) throw IoError("cannot open '" + path + "' to append: " + std::strerror(errno));
  if (::ftruncate(fd.get(), static_cast<off_t>(keep)) != 0)
    throw IoError("cannot cut '" + path + "' to " + std::to_string(keep) +
                  " bytes: " + std::strerror(errno));
  return RecordSpill("'" + path + "'", std::move(fd), keep);
}

RecordSpill::Where RecordSpill::append(std::string_view bytes) {
  const Where w{end_, bytes.size()};
  buffer_ += bytes;
  end_ += bytes.size();
  if (buffer_.size() >= kBufferBytes) flush();
  return w;
}

void RecordSpill::flush() const {
  for (std::size_t done = 0; done < buffer_.size();) {
    const ssize_t n = ::pwrite(fd_.get(), buffer_.data() + done, buffer_.size() - done,
                               static_cast<off_t>(written_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw IoError("cannot write " + what_ + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
}

std::string RecordSpill::read(Where w) const {
  if (w.offset + w.size > written_) flush();
  std::string out(w.size, '\0');
  for (std::size_t done = 0; done < w.size;) {
    const ssize_t n =
        ::pread(fd_.get(), out.data() + done, w.size - done, static_cast<off_t>(w.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw IoError("cannot read back " + what_ + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return out;
}

ReadWindow RecordSpill::reader() const {
  flush();
  return ReadWindow(fd_.get(), written_, what_);
}

}  // namespace perfit::io
