// Reading a column back (h5_columns.hpp): any float or integer width, fixed or variable
// strings, and files that declare rows they do not hold refused before anything is allocated.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "h5_attributes.hpp"
#include "h5_columns.hpp"
#include "inflated_chunks.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io::detail {

using data::Column;
using data::ColumnType;

namespace {

Column read_strings(hid_t dset, const std::string& name, hid_t mspace, hid_t fspace, std::size_t n,
                    const std::string& w) {
  std::vector<std::string> out(n);
  H5Datatype ftype(h5_check(H5Dget_type(dset), "type of " + w));
  if (H5Tis_variable_str(ftype.get()) > 0) {
    H5Datatype mtype = vlen_string_type();
    std::vector<char*> ptrs(n, nullptr);
    h5_check_status(H5Dread(dset, mtype.get(), mspace, fspace, H5P_DEFAULT, ptrs.data()),
                    "read " + w);
    for (std::size_t i = 0; i < n; ++i) out[i] = ptrs[i] ? ptrs[i] : "";
    H5Dvlen_reclaim(mtype.get(), mspace, H5P_DEFAULT, ptrs.data());
  } else {
    const std::size_t size = H5Tget_size(ftype.get());
    std::vector<char> buf(size * n);
    h5_check_status(H5Dread(dset, ftype.get(), mspace, fspace, H5P_DEFAULT, buf.data()),
                    "read " + w);
    for (std::size_t i = 0; i < n; ++i) {
      const char* s = buf.data() + i * size;
      out[i].assign(s, strnlen(s, size));
    }
  }
  return Column(name, std::move(out));
}

// "8 TB": bytes in the largest unit that keeps a number >= 1.
std::string bytes_text(double b) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  std::size_t u = 0;
  while (b >= 1024.0 && u + 1 < std::size(units)) {
    b /= 1024.0;
    ++u;
  }
  return format_g(b, 3) + " " + units[u];
}

// Rows [first, first + n) of a numeric column did not read. A failure in HDF5's filter pipeline
// (a compressed block that does not decompress) is damage in the file: bad data (exit 3) naming
// the rows of the first chunk that does not read, found by reading chunk by chunk, before
// anything is written; any other failure is HDF5's or the file's I/O, as h5_check_status says.
[[noreturn]] void read_failed(hid_t dset, std::size_t first, std::size_t n, const std::string& w) {
  const std::string stack = hdf5_error_stack();
  if (stack.find("pipeline") == std::string::npos) throw_h5_failure("read " + w, stack);
  const std::string cause =
      stack.substr(stack.rfind("; ") == std::string::npos ? 0 : stack.rfind("; ") + 2);
  const auto said = [&](std::size_t a, std::size_t b) {
    return DataError(w + ": rows " + std::to_string(a) + ".." + std::to_string(b) +
                     " cannot be read, the file is damaged there (a compressed block does not "
                     "decompress: " +
                     cause + "); re-import the set, or restore the file");
  };
  hsize_t chunk = n;
  H5Plist dcpl(h5_check(H5Dget_create_plist(dset), "creation properties of " + w));
  if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED && H5Pget_chunk(dcpl.get(), 1, &chunk) < 0)
    chunk = n;
  chunk = std::max<hsize_t>(chunk, 1);
  H5Dataspace fspace(h5_check(H5Dget_space(dset), "space of " + w));
  std::vector<double> buf;
  for (hsize_t a = first; a < first + n;) {
    const hsize_t len = std::min<hsize_t>(chunk - a % chunk, first + n - a);
    buf.resize(len);
    H5Dataspace mspace(h5_check(H5Screate_simple(1, &len, nullptr), "memory space"));
    const bool read =
        H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &a, nullptr, &len, nullptr) >= 0 &&
        H5Dread(dset, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, buf.data()) >= 0;
    if (!read) {
      hdf5_error_stack();  // cleared: the message says what it was
      throw said(a, a + len - 1);
    }
    a += len;
  }
  throw said(first, first + n - 1);  // every chunk alone reads: the whole range is named
}

}  // namespace

// A file another program wrote can declare more rows than it holds (a dataset of 10^12 rows
// never written takes no space; one written in part holds a few of its chunks): refused in one
// line before the buffer is allocated (it ended in std::bad_alloc) or unwritten rows are read as
// fill values. A chunked dataset storing at least 16 bytes per chunk it needs passes (a chunk
// of 65,536 equal values deflates to some 500 bytes); one storing less has the chunks of the
// range's first and last rows looked up to name what is missing. Both HDF5 calls walk every
// chunk (0.8 and 0.4 ms at 15,000 chunks): StoreReader makes them once per dataset.
void check_readable(hid_t dset, std::size_t first, std::size_t n, const std::string& w) {
  if (n == 0) return;
  H5Dataspace space(h5_check(H5Dget_space(dset), "space of " + w));
  hsize_t declared = n;
  H5Sget_simple_extent_dims(space.get(), &declared, nullptr);
  const hsize_t stored = H5Dget_storage_size(dset);
  if (stored == 0) {
    throw DataError(w + " declares " + std::to_string(declared) +
                    " rows but holds none: nothing of it was ever written "
                    "(0 bytes stored); write its values, or re-import the set");
  }
  H5Plist dcpl(h5_check(H5Dget_create_plist(dset), "creation properties of " + w));
  hsize_t chunk = 0;
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 ||
      chunk == 0 || stored >= 16 * ((declared + chunk - 1) / chunk))
    return;
  for (const hsize_t row : {hsize_t{first}, hsize_t{first + n - 1}}) {
    hsize_t at = row / chunk * chunk, size = 0;
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    if (H5Dget_chunk_info_by_coord(dset, &at, &mask, &addr, &size) >= 0 && addr != HADDR_UNDEF)
      continue;
    hdf5_error_stack();  // cleared: the message says what it was
    throw DataError(w + " declares " + std::to_string(declared) + " rows but rows " +
                    std::to_string(at) + ".." +
                    std::to_string(std::min<hsize_t>(at + chunk, declared) - 1) +
                    " (a chunk) were never written; write its values, or re-import the set");
  }
}

double row_bytes(hid_t dset, const ColumnInfo& ci, const std::string& w) {
  if (ci.type != ColumnType::string) return 8.0;
  H5Datatype ftype(h5_check(H5Dget_type(dset), "type of " + w));
  return (H5Tis_variable_str(ftype.get()) <= 0 ? static_cast<double>(H5Tget_size(ftype.get()))
                                               : 0.0) +
         sizeof(std::string);
}

void check_fits_in_memory(double bytes, std::size_t rows, std::size_t columns,
                          const std::string& w) {
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && bytes > 0.5 * memory) {
    throw DataError(w + ": reading its " + std::to_string(rows) + " rows (" +
                    std::to_string(columns) + " column(s)) at once needs " + bytes_text(bytes) +
                    ", more than half the " + bytes_text(memory) +
                    " of memory of this machine; `perfit fit` reads a set in chunks "
                    "(docs/stores.md \"Larger than memory\"); for the others split the set");
  }
}

Column read_column(hid_t dset, const ColumnInfo& ci, std::size_t first, std::size_t n,
                   const std::string& w, bool checked) {
  if (!checked) check_readable(dset, first, n, w);
  H5Dataspace fspace(h5_check(H5Dget_space(dset), "space of " + w));
  const hsize_t begin = first, count = n;
  h5_check_status(
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &begin, nullptr, &count, nullptr),
      "select rows of " + w);
  H5Dataspace mspace(h5_check(H5Screate_simple(1, &count, nullptr), "memory space"));
  switch (ci.type) {
    case ColumnType::float64: {
      std::vector<double> v(n);
      if (!read_inflated(dset, first, n, v.data()) &&
          H5Dread(dset, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, v.data()) < 0)
        read_failed(dset, first, n, w);
      return Column(ci.name, std::move(v));
    }
    case ColumnType::int64: {
      std::vector<std::int64_t> v(n);
      if (!read_inflated(dset, first, n, v.data()) &&
          H5Dread(dset, H5T_NATIVE_INT64, mspace.get(), fspace.get(), H5P_DEFAULT, v.data()) < 0)
        read_failed(dset, first, n, w);
      return Column(ci.name, std::move(v));
    }
    case ColumnType::string:
      break;
  }
  return read_strings(dset, ci.name, mspace.get(), fspace.get(), n, w);
}

}  // namespace perfit::io::detail
