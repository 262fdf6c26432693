#include "deflated_chunks.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "h5_handle.hpp"
#include "perfit/core/cpu_affinity.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io::detail {

ChunkFilters chunk_filters(hid_t dset, std::size_t chunk_rows) {
  const H5Plist dcpl(h5_check(H5Dget_create_plist(dset), "dataset creation plist"));
  hsize_t chunk = 0;
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 ||
      chunk != chunk_rows)
    return ChunkFilters::none;
  const auto filter = [&](unsigned k) {
    unsigned flags = 0;
    std::size_t n_values = 0;
    return H5Pget_filter2(dcpl.get(), k, &flags, &n_values, nullptr, 0, nullptr, nullptr);
  };
  const H5Datatype type(h5_check(H5Dget_type(dset), "dataset type"));
  const bool native = H5Tequal(type.get(), H5T_NATIVE_DOUBLE) > 0 ||
                      H5Tequal(type.get(), H5T_NATIVE_INT64) > 0;  // bytes as in memory
  switch (H5Pget_nfilters(dcpl.get())) {
    case 1:
      return filter(0) == H5Z_FILTER_DEFLATE && H5Tget_class(type.get()) == H5T_STRING
                 ? ChunkFilters::deflate
                 : ChunkFilters::none;
    case 2:
      return native && filter(0) == H5Z_FILTER_SHUFFLE && filter(1) == H5Z_FILTER_DEFLATE
                 ? ChunkFilters::shuffle_deflate
                 : ChunkFilters::none;
    default:
      return ChunkFilters::none;
  }
}

namespace {

// HDF5's shuffle filter: byte b of every element, then byte b+1 of every element, ...
void shuffle(const unsigned char* in, std::size_t elements, std::size_t size, unsigned char* out) {
  for (std::size_t b = 0; b < size; ++b) {
    for (std::size_t e = 0; e < elements; ++e) *out++ = in[e * size + b];
  }
}

// This thread's libdeflate compressor at kDeflateLevel (a few hundred KB of tables: made once
// per thread, not per chunk).
libdeflate_compressor* compressor() {
  thread_local const std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> c(
      libdeflate_alloc_compressor(static_cast<int>(kDeflateLevel)), libdeflate_free_compressor);
  if (!c) throw std::bad_alloc();
  return c.get();
}

}  // namespace

bool ChunkMemo::deflate(hid_t dset) {
  State& s = state_[dset];
  return !s.raw || ++s.since % kReprobe == 0;
}

void ChunkMemo::deflated(hid_t dset, std::size_t raw_bytes, std::size_t stored_bytes) {
  State& s = state_[dset];
  s.raw = static_cast<double>(stored_bytes) * kMinRatio > static_cast<double>(raw_bytes);
  s.since = 0;
}

void DeflateBatch::add(hid_t dset, ChunkFilters filters, const char* rows, std::size_t n,
                       std::size_t row_bytes, std::size_t first, std::size_t chunk_rows,
                       const std::string& where) {
  const H5Dataspace space(h5_check(H5Dget_space(dset), where));
  hsize_t extent = 0;
  h5_check_status(H5Sget_simple_extent_dims(space.get(), &extent, nullptr), where);
  if (first % chunk_rows != 0 || (first + n != extent && n % chunk_rows != 0) ||
      first + n > extent) {
    throw DataError(where + ": rows [" + std::to_string(first) + ", " + std::to_string(first + n) +
                    ") do not start and end on chunks of " + std::to_string(chunk_rows) +
                    " rows (of " + std::to_string(extent) + ")");
  }
  if (n > 0) rows_.push_back({dset, filters, rows, n, row_bytes, first, chunk_rows, where});
}

const char* DeflateBatch::keep(std::vector<char> bytes) {
  owned_.push_back(std::move(bytes));
  return owned_.back().data();  // its bytes do not move with owned_'s
}

void DeflateBatch::run() {
  if (rows_.empty()) return;  // a block with no whole chunk: HDF5 wrote it
  struct Chunk {
    std::size_t rows, index;  // rows_[rows], its chunk `index`
    bool deflate;
  };
  std::vector<Chunk> chunks;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t c = 0; c * rows_[r].chunk_rows < rows_[r].n; ++c)
      chunks.push_back({r, c, true});
  }
  std::unique_ptr<WorkerPool> own = threads_ ? nullptr : deflate_threads(chunks.size());
  WorkerPool& threads = threads_ ? *threads_ : *own;
  // A few chunks per thread at a time: memory stays a few chunks, compressed or not.
  const std::size_t batch = 4 * threads.threads();
  std::vector<std::vector<unsigned char>> packed(batch);
  std::vector<char> raw(batch);  // packed[k] holds the chunk as it is
  for (std::size_t c0 = 0; c0 < chunks.size(); c0 += batch) {
    const std::size_t in_batch = std::min(batch, chunks.size() - c0);
    // Decided here, in order: the memo has seen the chunks deflated in the batches before.
    for (std::size_t k = 0; k < in_batch; ++k)
      chunks[c0 + k].deflate = memo_->deflate(rows_[chunks[c0 + k].rows].dset);
    threads.for_each(in_batch, [&](std::size_t k) {
      const Chunk& chunk = chunks[c0 + k];
      const Rows& r = rows_[chunk.rows];
      const std::size_t chunk_bytes = r.chunk_rows * r.row_bytes;
      const std::size_t held = std::min(r.chunk_rows, r.n - chunk.index * r.chunk_rows);
      const unsigned char* src =
          reinterpret_cast<const unsigned char*>(r.rows) + chunk.index * chunk_bytes;
      const auto as_it_is = [&] {  // the last chunk zero-padded, as HDF5 keeps it
        packed[k].assign(chunk_bytes, 0);
        std::memcpy(packed[k].data(), src, held * r.row_bytes);
        raw[k] = 1;
      };
      raw[k] = 0;
      if (!chunk.deflate) return as_it_is();
      const unsigned char* const given = src;
      std::vector<unsigned char> whole;
      if (held < r.chunk_rows) {
        whole.assign(chunk_bytes, 0);
        std::memcpy(whole.data(), src, held * r.row_bytes);
        src = whole.data();
      }
      std::vector<unsigned char> shuffled;
      if (r.filters == ChunkFilters::shuffle_deflate && r.row_bytes > 1) {
        shuffled.resize(chunk_bytes);
        shuffle(src, r.chunk_rows, r.row_bytes, shuffled.data());
        src = shuffled.data();
      }
      // Room for less than the chunk: a chunk that deflating would not shrink does not fit
      // (libdeflate then returns 0) and is kept as it is.
      packed[k].resize(chunk_bytes - 1);
      const std::size_t size = libdeflate_zlib_compress(compressor(), src, chunk_bytes,
                                                        packed[k].data(), packed[k].size());
      if (size == 0) {
        src = given;
        return as_it_is();
      }
      packed[k].resize(size);
    });
    for (std::size_t k = 0; k < in_batch; ++k) {
      const Chunk& chunk = chunks[c0 + k];
      const Rows& r = rows_[chunk.rows];
      const std::size_t chunk_bytes = r.chunk_rows * r.row_bytes;
      if (chunk.deflate)
        memo_->deflated(r.dset, chunk_bytes, raw[k] ? chunk_bytes : packed[k].size());
      // A skipped filter's bit set: shuffle is filter 0 and deflate 1, or deflate alone 0.
      const std::uint32_t skipped =
          raw[k] ? (r.filters == ChunkFilters::shuffle_deflate ? 3u : 1u) : 0u;
      const hsize_t at = r.first + chunk.index * r.chunk_rows;
      h5_check_status(
          H5Dwrite_chunk(r.dset, H5P_DEFAULT, skipped, &at, packed[k].size(), packed[k].data()),
          r.where);
    }
  }
  rows_.clear();
  owned_.clear();
}

std::unique_ptr<WorkerPool> deflate_threads(std::size_t chunks) {
  return std::make_unique<WorkerPool>(
      static_cast<unsigned>(std::min<std::size_t>(unbound_cpus(), chunks)), true);
}

void write_deflated_rows(hid_t dset, ChunkFilters filters, const char* rows, std::size_t n,
                         std::size_t row_bytes, std::size_t first, std::size_t chunk_rows,
                         const std::string& where) {
  DeflateBatch b;
  b.add(dset, filters, rows, n, row_bytes, first, chunk_rows, where);
  b.run();
}

bool write_numbers_deflated(hid_t dset, hid_t native, const void* rows, std::size_t n,
                            std::size_t first, const std::string& where, DeflateBatch* batch) {
  const H5Plist dcpl(h5_check(H5Dget_create_plist(dset), where));
  hsize_t chunk = 0;
  if (n == 0 || H5Pget_layout(dcpl.get()) != H5D_CHUNKED ||
      H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk == 0 || first % chunk != 0)
    return false;
  const H5Datatype type(h5_check(H5Dget_type(dset), where));
  if (H5Tequal(type.get(), native) <= 0 ||
      chunk_filters(dset, chunk) != ChunkFilters::shuffle_deflate)
    return false;
  const H5Dataspace space(h5_check(H5Dget_space(dset), where));
  hsize_t extent = 0;
  h5_check_status(H5Sget_simple_extent_dims(space.get(), &extent, nullptr), where);
  if (n % chunk != 0 && first + n != extent) return false;
  DeflateBatch alone;
  (batch ? *batch : alone)
      .add(dset, ChunkFilters::shuffle_deflate, static_cast<const char*>(rows), n,
           H5Tget_size(type.get()), first, chunk, where);
  if (!batch) alone.run();
  return true;
}

}  // namespace perfit::io::detail
