#include "h5_handle.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

H5Id::~H5Id() {
  if (id_ >= 0) H5Idec_ref(id_);  // never throws; the last reference closes the object
}

void silence_hdf5_errors() {
  static const bool once = [] {
    // No HDF5 clean-up at exit: after a failed write (disk full) HDF5 1.10 keeps the file
    // open and its exit handler crashes closing it. perfit closes every file itself.
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)once;
}

namespace {
herr_t append_frame(unsigned n, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (n > 0) *out += "; ";
  *out += e->func_name ? e->func_name : "?";
  *out += ": ";
  std::string desc = e->desc ? e->desc : "(no description)";
  for (char& c : desc) {
    if (c == '\n') c = ' ';  // the sec2 driver's messages span lines: errors stay one line
  }
  *out += desc;
  return 0;
}
}  // namespace

std::string hdf5_error_stack() {
  std::string out;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, append_frame, &out);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

// A failed read or write of the file itself (disk full, quota, file-size limit, I/O error)
// is a file I/O error a user can act on, named by its errno, not HDF5's call stack.
[[noreturn]] void throw_h5_failure(const std::string& what, const std::string& stack) {
  const auto at = stack.find("errno = ");
  if (at != std::string::npos) {
    const int e = std::atoi(stack.c_str() + at + 8);
    if (e > 0) {
      std::string hint;
      if (e == ENOSPC || e == EDQUOT) hint = "; free space or write elsewhere";
      if (e == EFBIG) hint = "; the file-size limit (ulimit -f) is too small";
      throw IoError("cannot " + what + ": " + std::strerror(e) + hint);
    }
  }
  throw H5Error(what + " (HDF5: " + stack + ")");
}

namespace {

[[noreturn]] void fail(const std::string& what) { throw_h5_failure(what, hdf5_error_stack()); }

}  // namespace

hid_t h5_check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void h5_check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

namespace {

// The end-of-file address the superblock records (HDF5 file format spec, section II.A), or 0
// when it cannot be read. Versions 0/1 keep it after base and free-space addresses; 2/3 after
// base and extension addresses. 8-byte offsets (the default) only.
std::uint64_t stored_eof(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  static const char kSig[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  for (std::uint64_t at = 0; at < (1u << 20); at = at ? at * 2 : 512) {
    char buf[64] = {};
    in.clear();
    in.seekg(static_cast<std::streamoff>(at));
    if (!in.read(buf, sizeof buf)) return 0;
    if (std::memcmp(buf, kSig, 8) != 0) continue;
    const int version = static_cast<unsigned char>(buf[8]);
    std::size_t off = 0;
    int offsets = 0;
    if (version == 0 || version == 1) {
      offsets = static_cast<unsigned char>(buf[13]);
      off = (version == 0 ? 24 : 28) + 16;
    } else if (version == 2 || version == 3) {
      offsets = static_cast<unsigned char>(buf[9]);
      off = 12 + 16;
    }
    if (offsets != 8 || off + 8 > sizeof buf) return 0;
    std::uint64_t eof = 0;
    for (int b = 7; b >= 0; --b)
      eof = (eof << 8) | static_cast<unsigned char>(buf[off + static_cast<std::size_t>(b)]);
    return eof + at;
  }
  return 0;
}

}  // namespace

H5File open_h5_read(const std::string& path) {
  silence_hdf5_errors();
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) return H5File(f);
  const std::string stack = hdf5_error_stack();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const std::uint64_t want = stored_eof(path);
  if (!ec && want > size) {
    throw DataError("truncated or corrupt HDF5 file '" + path + "' (" + std::to_string(size) +
                    " of " + std::to_string(want) + " bytes); restore or rewrite it");
  }
  const auto last = stack.rfind(": ");
  throw DataError("corrupt HDF5 file '" + path + "': HDF5 cannot open it (" +
                  (last == std::string::npos ? stack : stack.substr(last + 2)) +
                  "); restore or rewrite it");
}

}  // namespace perfit::io
