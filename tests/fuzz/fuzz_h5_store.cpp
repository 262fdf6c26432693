// Stores that another program could write, built by libhdf5 itself from the input (a
// structure-aware target): the input is a recipe of sets, their attributes (right, wrong or
// missing format and target, odd types), their columns (float, integer of any width, text,
// compound, enum, opaque, 2-D, scalar, ragged, empty, declaring rows never written) and links
// (soft, dangling, looping, external, a column linked twice, a group inside a set). The file is
// valid HDF5 without perfit's seal, as h5py writes them, and is then listed, described and
// loaded as `perfit inspect` and `perfit fit` read stores. libhdf5 wrote every byte of metadata,
// so a crash, a leak or an exception other than perfit's typed errors is perfit's finding, where
// fuzz_store (bytes of sealed stores) cannot reach: a changed byte fails the seal first.
#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_input.hpp"

namespace {

// The input read as choices; past its end every choice is 0.
class Recipe {
 public:
  Recipe(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t byte() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  unsigned below(unsigned k) { return k == 0 ? 0 : byte() % k; }
  double number() {
    static constexpr std::array<double, 8> special = {0.0,
                                                      -1.0,
                                                      1e300,
                                                      1e-300,
                                                      std::numeric_limits<double>::quiet_NaN(),
                                                      std::numeric_limits<double>::infinity(),
                                                      -0.0,
                                                      64.0};
    const std::uint8_t b = byte();
    return b < 32 ? special[b % special.size()] : static_cast<double>(b) / 4.0;
  }
  std::string name() {
    static constexpr std::array<const char*, 10> names = {
        "p", "b", "time", "d", "epochs", "n_accelerators", "perfit_format", "target", "x y", "t"};
    return names[below(names.size())];
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

// Closes an HDF5 id when it goes; a failed create (a name HDF5 refuses) is just skipped.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

void string_attribute(hid_t obj, const char* key, const std::string& value) {
  Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type.id, value.empty() ? 1 : value.size());
  Id space{H5Screate(H5S_SCALAR), H5Sclose};
  Id a{H5Acreate2(obj, key, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  if (a.id >= 0) H5Awrite(a.id, type.id, value.c_str());
}

void number_attribute(hid_t obj, const char* key, std::vector<double> values, bool scalar) {
  Id space{scalar ? H5Screate(H5S_SCALAR)
                  : H5Screate_simple(1, std::array<hsize_t, 1>{values.size()}.data(), nullptr),
           H5Sclose};
  Id a{H5Acreate2(obj, key, H5T_NATIVE_DOUBLE, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  if (a.id >= 0) H5Awrite(a.id, H5T_NATIVE_DOUBLE, values.data());
}

void set_attributes(hid_t g, Recipe& r) {
  switch (r.below(5)) {
    case 0:
    case 1:
      string_attribute(g, "perfit_format", "perfit-store-1");
      break;
    case 2:
      string_attribute(g, "perfit_format", "perfit-store-9");
      break;
    case 3:
      number_attribute(g, "perfit_format", {1.0, 2.0, 3.0}, false);
      break;
    default:
      break;  // none: not a set
  }
  switch (r.below(5)) {
    case 0:
    case 1:
      string_attribute(g, "target", "time");
      break;
    case 2:
      string_attribute(g, "target", r.name());
      break;
    case 3:
      number_attribute(g, "target", {5.0}, true);
      break;
    default:
      break;
  }
  if (r.below(4) == 0) string_attribute(g, "unit", std::string(r.below(200), 's'));
  if (r.below(4) == 0) number_attribute(g, "checksum", {r.number()}, r.byte() & 1);
}

// A dataset of `type` and `dims` (rank 0-2) holding `bytes` (when writing); chunks: bit 0
// chunked and deflated, bit 1 shuffled first (perfit's own columns, read by libdeflate).
void dataset(hid_t g, const std::string& name, hid_t type, std::vector<hsize_t> dims,
             const void* bytes, unsigned chunks) {
  Id space{dims.empty() ? H5Screate(H5S_SCALAR)
                        : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
           H5Sclose};
  Id dcpl{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  if ((chunks & 1u) && !dims.empty()) {
    std::vector<hsize_t> chunk(dims.size());
    for (std::size_t k = 0; k < dims.size(); ++k)
      chunk[k] = std::max<hsize_t>(1, std::min<hsize_t>(16, dims[k]));
    H5Pset_chunk(dcpl.id, static_cast<int>(chunk.size()), chunk.data());
    if (chunks & 2u) H5Pset_shuffle(dcpl.id);
    H5Pset_deflate(dcpl.id, 1);
  }
  Id d{H5Dcreate2(g, name.c_str(), type, space.id, H5P_DEFAULT, dcpl.id, H5P_DEFAULT), H5Dclose};
  if (d.id >= 0 && bytes != nullptr) H5Dwrite(d.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes);
}

void column(hid_t g, Recipe& r, hsize_t rows) {
  const std::string name = r.name();
  if (r.below(6) == 0) rows = r.below(9);  // ragged
  std::vector<double> f(rows);
  for (auto& v : f) v = r.number();
  std::vector<std::int64_t> i(rows);
  for (auto& v : i) v = static_cast<std::int64_t>(r.byte()) - 8;
  const unsigned chunked = r.byte() & 3u;
  switch (r.below(11)) {
    case 0:
    case 1:
      return dataset(g, name, H5T_NATIVE_DOUBLE, {rows}, f.data(), chunked);
    case 2:
      return dataset(g, name, H5T_NATIVE_INT64, {rows}, i.data(), chunked);
    case 3: {  // narrow and unsigned integers, single floats
      std::vector<std::uint8_t> u(rows);
      for (auto& v : u) v = r.byte();
      return dataset(g, name, r.byte() & 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT8, {rows}, u.data(),
                     chunked);
    }
    case 4: {  // variable-length text
      std::vector<std::string> text(rows);
      std::vector<const char*> ptr(rows);
      for (hsize_t k = 0; k < rows; ++k) {
        text[k] = std::string(r.below(5), static_cast<char>('0' + r.below(10)));
        ptr[k] = r.below(8) == 0 ? nullptr : text[k].c_str();
      }
      Id type{H5Tcopy(H5T_C_S1), H5Tclose};
      H5Tset_size(type.id, H5T_VARIABLE);
      return dataset(g, name, type.id, {rows}, ptr.data(), chunked);
    }
    case 5: {  // fixed-length text
      std::vector<char> text(rows * 4, '7');
      Id type{H5Tcopy(H5T_C_S1), H5Tclose};
      H5Tset_size(type.id, 4);
      return dataset(g, name, type.id, {rows}, text.data(), chunked);
    }
    case 6: {  // compound
      Id type{H5Tcreate(H5T_COMPOUND, 2 * sizeof(double)), H5Tclose};
      H5Tinsert(type.id, "lo", 0, H5T_NATIVE_DOUBLE);
      H5Tinsert(type.id, "hi", sizeof(double), H5T_NATIVE_DOUBLE);
      std::vector<double> two(2 * rows, 1.0);
      return dataset(g, name, type.id, {rows}, two.data(), chunked);
    }
    case 7: {  // enum and opaque
      if (r.byte() & 1) {
        Id type{H5Tenum_create(H5T_NATIVE_INT), H5Tclose};
        int a = 0, b = 1;
        H5Tenum_insert(type.id, "a", &a);
        H5Tenum_insert(type.id, "b", &b);
        std::vector<int> v(rows, 1);
        return dataset(g, name, type.id, {rows}, v.data(), chunked);
      }
      Id type{H5Tcreate(H5T_OPAQUE, 8), H5Tclose};
      return dataset(g, name, type.id, {rows}, f.data(), chunked);
    }
    case 8:  // 2-D
      return dataset(g, name, H5T_NATIVE_DOUBLE, {rows, 2}, nullptr, chunked);
    case 9:  // scalar
      return dataset(g, name, H5T_NATIVE_DOUBLE, {}, f.empty() ? nullptr : f.data(), 0u);
    default:  // rows declared and never written: up to 2^47, chunked so nothing is allocated
      return dataset(g, name, H5T_NATIVE_DOUBLE, {hsize_t{1} << r.below(48)}, nullptr, 1u);
  }
}

void links(hid_t file, hid_t g, const std::string& set, Recipe& r) {
  switch (r.below(7)) {
    case 0:
      H5Lcreate_soft((set + "/loop").c_str(), g, "loop", H5P_DEFAULT, H5P_DEFAULT);
      break;
    case 1:
      H5Lcreate_soft("/nowhere", g, r.name().c_str(), H5P_DEFAULT, H5P_DEFAULT);
      break;
    case 2:
      H5Lcreate_external("missing.h5", "/p", g, r.name().c_str(), H5P_DEFAULT, H5P_DEFAULT);
      break;
    case 3:  // a column of this set linked twice, or one of another set
      H5Lcreate_hard(file, (set + "/time").c_str(), g, "time2", H5P_DEFAULT, H5P_DEFAULT);
      H5Lcreate_hard(file, "/s0/m/p", g, r.name().c_str(), H5P_DEFAULT, H5P_DEFAULT);
      break;
    case 4: {
      Id inner{H5Gcreate2(g, r.name().c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
      break;
    }
    default:
      break;
  }
}

// The recipe as a file at path; false when libhdf5 could not create it.
bool build(const std::string& path, Recipe& r) {
  Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) return false;
  Id lcpl{H5Pcreate(H5P_LINK_CREATE), H5Pclose};
  H5Pset_create_intermediate_group(lcpl.id, 1);
  const unsigned sets = 1 + r.below(3);
  for (unsigned s = 0; s < sets; ++s) {
    const std::string set = "/s" + std::to_string(s) + (r.byte() & 1 ? "/m" : "/m/sys");
    Id g{H5Gcreate2(file.id, set.c_str(), lcpl.id, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    if (g.id < 0) continue;
    set_attributes(g.id, r);
    const hsize_t rows = r.below(9);
    const unsigned cols = r.below(5);
    for (unsigned c = 0; c < cols; ++c) column(g.id, r, rows);
    links(file.id, g.id, set, r);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace perfit;
  // A path in this process's own directory (fuzz_input.hpp); libhdf5 writes the file there.
  const std::string path = fuzz::write_input("crafted.h5", data, 0);
  Recipe r(data, size);
  if (build(path, r)) fuzz::read_every_set(path);
  return 0;
}
