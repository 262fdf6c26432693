// RAII owners of HDF5 identifiers, plus the one place HDF5 failures become exceptions.
// Private to io: its public headers hold an H5Id (perfit/io/h5_id.hpp) instead.
// HDF5's own error printing is switched off (silence_hdf5_errors): a failure becomes an
// H5Error carrying the stack, and the user sees one message, not a dump on stderr.
#pragma once

#include <hdf5.h>

#include <string>
#include <type_traits>
#include <utility>

#include "perfit/io/h5_id.hpp"

namespace perfit::io {

static_assert(std::is_same_v<hid_t, std::int64_t>, "H5Id holds an hid_t as int64_t (HDF5 >= 1.10)");

// Sole owner of one hid_t; move-only.
template <herr_t (*Close)(hid_t)>
class H5Handle {
 public:
  H5Handle() = default;
  explicit H5Handle(hid_t id) : id_(id) {}
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  H5Handle& operator=(H5Handle o) noexcept {
    std::swap(id_, o.id_);
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  ~H5Handle() {
    if (id_ >= 0) Close(id_);  // never throws
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Gives up ownership (to close explicitly and check the status).
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
  // Hands ownership to the untyped H5Id of a public header.
  H5Id to_id() && { return H5Id(release()); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using H5File = H5Handle<H5Fclose>;
using H5Group = H5Handle<H5Gclose>;
using H5Dataset = H5Handle<H5Dclose>;
using H5Dataspace = H5Handle<H5Sclose>;
using H5Datatype = H5Handle<H5Tclose>;
using H5Attribute = H5Handle<H5Aclose>;
using H5Plist = H5Handle<H5Pclose>;

// The current HDF5 error stack as text (innermost first), empty when there is none.
std::string hdf5_error_stack();

// Throws: IoError "cannot <what>: <strerror>" when the failure was the file's own I/O (disk
// full, quota, ulimit -f), else H5Error "<what> (HDF5: <stack>)" when id < 0; returns id.
hid_t h5_check(hid_t id, const std::string& what);
// Throws: as h5_check, when status < 0.
void h5_check_status(herr_t status, const std::string& what);
// The same with the error stack already taken (hdf5_error_stack()), for a caller that first
// reads it to tell damaged data from a failure of HDF5 or of the file's I/O.
[[noreturn]] void throw_h5_failure(const std::string& what, const std::string& stack);

// Opens an existing HDF5 file read-only. Throws: DataError "truncated or corrupt HDF5 file
// 'X' (N of M bytes)" when the file is shorter than its superblock says, or "corrupt HDF5 file"
// otherwise; never the library's stack (that goes to the debug log).
H5File open_h5_read(const std::string& path);

}  // namespace perfit::io
