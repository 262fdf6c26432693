// An HDF5 identifier owned without hdf5.h: what io's public headers hold, so that hdf5.h is
// seen only by io's own .cpp files (src/io/h5_handle.hpp has the typed handles they use).
#pragma once

#include <cstdint>
#include <utility>

namespace perfit::io {

// Sole owner of one HDF5 identifier (file, group, dataset...); move-only; closed through the
// library's reference count when it goes.
class H5Id {
 public:
  H5Id() = default;
  explicit H5Id(std::int64_t id) : id_(id) {}
  H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, -1)) {}
  H5Id& operator=(H5Id o) noexcept {
    std::swap(id_, o.id_);
    return *this;
  }
  H5Id(const H5Id&) = delete;
  ~H5Id();
  std::int64_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Gives up ownership (to close explicitly and check the status).
  std::int64_t release() { return std::exchange(id_, -1); }

 private:
  std::int64_t id_ = -1;
};

// Turns off HDF5's automatic error printing and its exit handler for this process
// (idempotent; call it before any other HDF5 function, as main() does).
void silence_hdf5_errors();

}  // namespace perfit::io
