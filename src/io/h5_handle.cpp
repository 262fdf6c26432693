#include "perfit/io/h5_handle.hpp"

#include "perfit/core/error.hpp"

namespace perfit::io {

void silence_hdf5_errors() {
  static const bool once = [] {
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
  *out += e->desc ? e->desc : "(no description)";
  return 0;
}
}  // namespace

std::string hdf5_error_stack() {
  std::string out;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, append_frame, &out);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

hid_t h5_check(hid_t id, const std::string& what) {
  if (id < 0) throw H5Error(what + " (HDF5: " + hdf5_error_stack() + ")");
  return id;
}

void h5_check_status(herr_t status, const std::string& what) {
  if (status < 0) throw H5Error(what + " (HDF5: " + hdf5_error_stack() + ")");
}

}  // namespace perfit::io
