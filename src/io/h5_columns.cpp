#include "h5_columns.hpp"

#include <algorithm>
#include <cstring>

#include "deflated_chunks.hpp"
#include "h5_attributes.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io::detail {

using data::Column;
using data::ColumnType;

ColumnType column_type_of(hid_t dset, const std::string& where) {
  H5Datatype t(h5_check(H5Dget_type(dset), "type of " + where));
  switch (H5Tget_class(t.get())) {
    case H5T_FLOAT:
      return ColumnType::float64;
    case H5T_INTEGER:
      return ColumnType::int64;
    case H5T_STRING:
      return ColumnType::string;
    default:
      break;
  }
  throw DataError(where + " has an unsupported HDF5 type class; expected float, integer or string");
}

namespace {

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

}  // namespace

std::vector<std::string> member_names(hid_t group) {
  std::vector<std::string> names;
  hsize_t idx = 0;
  if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_link, &names) < 0) {
    hdf5_error_stack();  // not tracked (file written by another tool): fall back to names
    names.clear();
    idx = 0;
    h5_check_status(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, &names),
                    "list group members");
  }
  return names;
}

namespace {

// Numbers: shuffled, then deflated (their bytes of equal significance side by side). Fixed-width
// text: deflated only: shuffling it by its width took twice as long to deflate and gave twice
// the bytes (200,000 run configurations of 883 bytes: 0.34 s, 4.2 MB shuffled; 0.19 s, 1.8 MB not).
enum class Filter { none, deflate, shuffle_deflate };

H5Plist column_plist(std::size_t rows, std::size_t chunk_rows, Filter filter) {
  H5Plist dcpl(h5_check(H5Pcreate(H5P_DATASET_CREATE), "dataset creation plist"));
  if (rows >= kChunkThresholdRows) {
    const hsize_t chunk = std::min(chunk_rows, rows);
    h5_check_status(H5Pset_chunk(dcpl.get(), 1, &chunk), "set chunk");
    if (filter == Filter::shuffle_deflate)
      h5_check_status(H5Pset_shuffle(dcpl.get()), "set shuffle");
    if (filter != Filter::none)
      h5_check_status(H5Pset_deflate(dcpl.get(), kDeflateLevel), "set deflate");
  }
  return dcpl;
}

hid_t file_type_of(ColumnType t) {
  switch (t) {
    case ColumnType::float64:
      return H5T_IEEE_F64LE;
    case ColumnType::int64:
      return H5T_STD_I64LE;
    case ColumnType::string:
      break;
  }
  return H5I_INVALID_HID;
}

H5Datatype fixed_string_type(std::size_t width, const std::string& w) {
  H5Datatype t(h5_check(H5Tcopy(H5T_C_S1), w));
  h5_check_status(H5Tset_size(t.get(), width), w);
  h5_check_status(H5Tset_strpad(t.get(), H5T_STR_NULLPAD), w);
  h5_check_status(H5Tset_cset(t.get(), H5T_CSET_UTF8), w);
  return t;
}

}  // namespace

H5Dataset create_column(hid_t group, const ColumnInfo& c, std::size_t rows, std::size_t chunk_rows,
                        const std::string& where) {
  const hsize_t n = rows;
  H5Dataspace space(h5_check(H5Screate_simple(1, &n, nullptr), "dataspace"));
  // Filters on variable-length strings would compress heap pointers, not text.
  H5Plist dcpl = column_plist(
      rows, chunk_rows, c.type != ColumnType::string ? Filter::shuffle_deflate : Filter::none);
  H5Datatype vlen;
  hid_t ftype = file_type_of(c.type);
  if (c.type == ColumnType::string) {
    vlen = vlen_string_type();
    ftype = vlen.get();
  }
  return H5Dataset(h5_check(
      H5Dcreate2(group, c.name.c_str(), ftype, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      "create " + where + " dataset '" + c.name + "'"));
}

void write_numbers_at(hid_t d, ColumnType type, const void* values, std::size_t n,
                      std::size_t offset, const std::string& w, DeflateBatch* batch) {
  const hid_t native = type == ColumnType::int64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  if (n == 0 || write_numbers_deflated(d, native, values, n, offset, w, batch)) return;
  H5Dataspace fspace(h5_check(H5Dget_space(d), w));
  const hsize_t start = offset, count = n;
  h5_check_status(
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), w);
  H5Dataspace mspace(h5_check(H5Screate_simple(1, &count, nullptr), w));
  h5_check_status(H5Dwrite(d, native, mspace.get(), fspace.get(), H5P_DEFAULT, values), w);
}

void write_column(hid_t d, ColumnType type, const Column& col, std::size_t offset,
                  const std::string& w, DeflateBatch* batch) {
  if (type == ColumnType::string) {
    if (col.type() != ColumnType::string) {
      throw DataError(w + ": column is string in the set, " + to_string(col.type()) +
                      " in the rows");
    }
    H5Dataspace fspace(h5_check(H5Dget_space(d), w));
    const hsize_t start = offset, count = col.size();
    h5_check_status(
        H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), w);
    H5Dataspace mspace(h5_check(H5Screate_simple(1, &count, nullptr), w));
    std::vector<const char*> ptrs;
    ptrs.reserve(col.size());
    for (const auto& s : col.str()) ptrs.push_back(s.c_str());
    H5Datatype t = vlen_string_type();
    // The conversion buffer of a string write is 1 MiB by default, zeroed per call: 4 ms
    // of a small result file's write. A few slots per row are enough.
    H5Plist dxpl(h5_check(H5Pcreate(H5P_DATASET_XFER), w));
    const std::size_t bytes = std::clamp<std::size_t>(col.size() * 64, 4096, std::size_t{1} << 20);
    h5_check_status(H5Pset_buffer(dxpl.get(), bytes, nullptr, nullptr), w);
    h5_check_status(H5Dwrite(d, t.get(), mspace.get(), fspace.get(), dxpl.get(), ptrs.data()), w);
  } else if (type == ColumnType::int64 && col.type() == ColumnType::int64) {
    write_numbers_at(d, type, col.i64().data(), col.size(), offset, w, batch);
  } else if (type == ColumnType::float64 && col.type() == ColumnType::float64) {
    write_numbers_at(d, type, col.f64().data(), col.size(), offset, w, batch);
  } else {
    throw DataError(w + ": column is " + to_string(type) + " in the set, " + to_string(col.type()) +
                    " in the rows");
  }
}

H5Dataset create_fixed_strings(hid_t group, const std::string& name, std::size_t width,
                               std::size_t rows, std::size_t chunk_rows, const std::string& where) {
  const std::string w = "write " + where + " dataset '" + name + "'";
  H5Datatype t = fixed_string_type(std::max<std::size_t>(width, 1), w);
  const hsize_t n = rows;
  H5Dataspace space(h5_check(H5Screate_simple(1, &n, nullptr), w));
  H5Plist dcpl = column_plist(rows, chunk_rows, Filter::deflate);
  return H5Dataset(h5_check(
      H5Dcreate2(group, name.c_str(), t.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      w));
}

void write_fixed_bytes_at(hid_t dset, const char* bytes, std::size_t n, std::size_t offset,
                          std::size_t chunk_rows, const std::string& where, DeflateBatch* batch) {
  if (n == 0) return;
  H5Datatype t(h5_check(H5Dget_type(dset), where));
  const std::size_t width = H5Tget_size(t.get());
  if (chunk_rows > 0 && offset % chunk_rows == 0 &&
      chunk_filters(dset, chunk_rows) == ChunkFilters::deflate) {
    H5Dataspace space(h5_check(H5Dget_space(dset), where));
    hsize_t extent = 0;
    h5_check_status(H5Sget_simple_extent_dims(space.get(), &extent, nullptr), where);
    if (n % chunk_rows == 0 || offset + n == extent) {  // whole chunks, or the dataset's last
      if (batch) {
        batch->add(dset, ChunkFilters::deflate, bytes, n, width, offset, chunk_rows, where);
      } else {
        write_deflated_rows(dset, ChunkFilters::deflate, bytes, n, width, offset, chunk_rows,
                            where);
      }
      return;
    }
  }
  H5Dataspace fspace(h5_check(H5Dget_space(dset), where));
  const hsize_t first = offset, count = n;
  h5_check_status(
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &first, nullptr, &count, nullptr), where);
  H5Dataspace mspace(h5_check(H5Screate_simple(1, &count, nullptr), where));
  h5_check_status(H5Dwrite(dset, t.get(), mspace.get(), fspace.get(), H5P_DEFAULT, bytes), where);
}

void write_fixed_strings_at(hid_t dset, const std::vector<std::string>& values, std::size_t offset,
                            std::size_t chunk_rows, const std::string& where, DeflateBatch* batch) {
  H5Datatype t(h5_check(H5Dget_type(dset), where));
  const std::size_t width = H5Tget_size(t.get());
  // In blocks: 10^5 rows of 2 KB texts would be a 200 MB buffer at once.
  const std::size_t block = 8 * std::max<std::size_t>(chunk_rows, 1);
  std::vector<char> buf;
  for (std::size_t at = 0; at < values.size(); at += block) {
    const std::size_t n_block = std::min(block, values.size() - at);
    // Each text then its padding, every byte written once: zeroing the whole block first was
    // a pass over ~1 GB more at the end of a selection of 10^6 sets (its run configurations).
    buf.clear();
    buf.reserve(n_block * width);
    for (std::size_t i = 0; i < n_block; ++i) {
      const std::string& v = values[at + i];
      if (v.size() > width) throw DataError(where + ": " + too_wide(v.size(), width));
      buf.insert(buf.end(), v.begin(), v.end());
      buf.insert(buf.end(), width - v.size(), '\0');
    }
    // A batch keeps the block's bytes until it runs: the next block takes a new buffer.
    const char* bytes = batch ? batch->keep(std::move(buf)) : buf.data();
    write_fixed_bytes_at(dset, bytes, n_block, offset + at, chunk_rows, where, batch);
  }
}

std::string too_wide(std::size_t bytes, std::size_t width) {
  return "a text of " + std::to_string(bytes) + " bytes in a column " + std::to_string(width) +
         " wide";
}

void write_fixed_strings(hid_t group, const std::string& name,
                         const std::vector<std::string>& values, std::size_t chunk_rows,
                         const std::string& where) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  H5Dataset d = create_fixed_strings(group, name, width, values.size(), chunk_rows, where);
  write_fixed_strings_at(d.get(), values, 0, chunk_rows,
                         "write " + where + " dataset '" + name + "'");
}

}  // namespace perfit::io::detail
