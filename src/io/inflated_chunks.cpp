#include "inflated_chunks.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "h5_handle.hpp"

namespace perfit::io::detail {

namespace {

// Larger chunks are HDF5's to read: a crafted file's chunk size is not an allocation to make.
constexpr std::size_t kMaxChunkBytes = std::size_t{64} << 20;

struct Layout {
  std::size_t chunk_rows = 0;
  bool integers = false;  // int64 stored, else double
  bool shuffle = false;
  unsigned deflate_bit = 0;  // the filter mask's bit of a chunk whose deflate was skipped
};

std::optional<Layout> layout_of(hid_t dset) {
  if constexpr (std::endian::native != std::endian::little) return std::nullopt;
  const H5Plist dcpl(H5Dget_create_plist(dset));
  const H5Datatype type(H5Dget_type(dset));
  const H5Dataspace space(H5Dget_space(dset));
  if (!dcpl.valid() || !type.valid() || !space.valid()) return std::nullopt;
  Layout l;
  hsize_t chunk = 0;
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 ||
      H5Sget_simple_extent_ndims(space.get()) != 1 || chunk == 0 || chunk > kMaxChunkBytes / 8)
    return std::nullopt;
  l.chunk_rows = chunk;
  l.integers = H5Tequal(type.get(), H5T_NATIVE_INT64) > 0;
  if (!l.integers && H5Tequal(type.get(), H5T_NATIVE_DOUBLE) <= 0) return std::nullopt;
  const auto filter = [&](unsigned k) {
    unsigned flags = 0;
    std::size_t n_values = 0;
    return H5Pget_filter2(dcpl.get(), k, &flags, &n_values, nullptr, 0, nullptr, nullptr);
  };
  const int filters = H5Pget_nfilters(dcpl.get());
  if (filters == 2 && filter(0) == H5Z_FILTER_SHUFFLE && filter(1) == H5Z_FILTER_DEFLATE) {
    l.shuffle = true;
    l.deflate_bit = 2;
  } else if (filters == 1 && filter(0) == H5Z_FILTER_DEFLATE) {
    l.deflate_bit = 1;
  } else {
    return std::nullopt;
  }
  return l;
}

// This thread's decompressor (a few KB of tables: made once per thread, not per chunk).
libdeflate_decompressor* decompressor() {
  thread_local const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!d) throw std::bad_alloc();
  return d.get();
}

template <typename T>
T value_of(std::int64_t bits) {
  if constexpr (std::is_same_v<T, double>) return static_cast<double>(bits);
  return bits;
}

// Rows [lo, hi) of a chunk of `rows` values, its bytes in order or shuffled (byte b of every
// value, then byte b + 1 of every value, ...), to out; stored integers become T by a cast.
template <typename T>
void copy_rows(const unsigned char* bytes, std::size_t rows, bool shuffled, bool integers,
               std::size_t lo, std::size_t hi, T* out) {
  for (std::size_t r = lo; r < hi; ++r) {
    std::uint64_t v = 0;
    if (shuffled) {
      for (std::size_t b = 0; b < 8; ++b) v |= std::uint64_t{bytes[b * rows + r]} << (8 * b);
    } else {
      std::memcpy(&v, bytes + 8 * r, 8);
    }
    if (integers) {
      *out++ = value_of<T>(std::bit_cast<std::int64_t>(v));
    } else {
      *out++ = static_cast<T>(std::bit_cast<double>(v));
    }
  }
}

template <typename T>
bool read_chunks(hid_t dset, std::size_t first, std::size_t n, T* out) {
  if (n == 0) return true;
  const std::optional<Layout> l = layout_of(dset);
  if (!l || (!l->integers && std::is_same_v<T, std::int64_t>)) return false;
  const std::size_t rows = l->chunk_rows, bytes = 8 * rows;
  std::vector<unsigned char> stored, inflated(bytes);
  for (std::size_t c = first / rows; c * rows < first + n; ++c) {
    hsize_t at = c * rows, size = 0;
    std::uint32_t mask = 0;
    // A deflated chunk is at most a few bytes per 16 KB larger than its values.
    if (H5Dget_chunk_storage_size(dset, &at, &size) < 0 || size == 0 ||
        size > bytes + bytes / 64 + 1024)
      return false;
    stored.resize(size);
    if (H5Dread_chunk(dset, H5P_DEFAULT, &at, &mask, stored.data()) < 0) return false;
    if (mask & ~(l->deflate_bit | (l->shuffle ? 1u : 0u))) return false;
    const unsigned char* values = stored.data();
    if (!(mask & l->deflate_bit)) {
      std::size_t got = 0;
      if (libdeflate_zlib_decompress(decompressor(), stored.data(), size, inflated.data(), bytes,
                                     &got) != LIBDEFLATE_SUCCESS ||
          got != bytes)
        return false;
      values = inflated.data();
    } else if (size != bytes) {
      return false;
    }
    const std::size_t lo = std::max(first, c * rows) - c * rows;
    const std::size_t hi = std::min(first + n, (c + 1) * rows) - c * rows;
    copy_rows(values, rows, l->shuffle && !(mask & 1u), l->integers, lo, hi,
              out + (c * rows + lo - first));
  }
  return true;
}

// A chunk this path cannot read leaves HDF5's error stack as its calls left it: cleared, since
// HDF5's own read that follows is the one whose errors are told.
template <typename T>
bool read_or_clear(hid_t dset, std::size_t first, std::size_t n, T* out) {
  if (read_chunks(dset, first, n, out)) return true;
  hdf5_error_stack();
  return false;
}

}  // namespace

bool read_inflated(hid_t dset, std::size_t first, std::size_t n, double* out) {
  return read_or_clear(dset, first, n, out);
}

bool read_inflated(hid_t dset, std::size_t first, std::size_t n, std::int64_t* out) {
  return read_or_clear(dset, first, n, out);
}

}  // namespace perfit::io::detail
