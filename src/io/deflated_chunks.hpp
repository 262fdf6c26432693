// Private to io/: whole chunks of a deflated dataset compressed on several threads and written
// as they are (H5Dwrite_chunk), instead of by HDF5's filter pipeline on the calling thread. A
// selection store's text columns (each winner's run configuration, ~1 KB) are most of its
// bytes, and deflating them was most of the time its write took. The chunks are deflated by
// libdeflate (3-4x zlib's speed at level 1 on those columns), in the zlib format HDF5's
// deflate filter reads: any HDF5 reader (h5py) inflates them with the same filter.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfit {
class WorkerPool;  // core/worker_pool.hpp
}

namespace perfit::io::detail {

// How a 1-D dataset chunked by chunk_rows is filtered, when write_deflated_rows can write it:
// deflate alone (fixed-length text) or shuffle then deflate (numbers, stored in the memory's
// byte order); `none` for anything else (contiguous, another chunk, other filters or types).
enum class ChunkFilters { none, deflate, shuffle_deflate };
ChunkFilters chunk_filters(hid_t dset, std::size_t chunk_rows);

// Which datasets' chunks hardly deflate, learnt from the chunks written so far: theirs are then
// stored as they are, with the filters marked skipped in the chunk (shuffle and deflate are
// optional filters: HDF5 and h5py inflate only the chunks that were deflated). A noisy float64
// column deflates ~1.2:1 at ~75 MB/s on a core (zlib); it was most of the CPU time of importing
// 10^6 call paths (their values) and of writing a selection store of 10^6 winners (their metrics
// and constants). Every kReprobe-th chunk of such a dataset is deflated again, and kept deflated
// whenever that is smaller: a column that starts noisy and turns regular is deflated again.
class ChunkMemo {
 public:
  // Ratio of stored to raw bytes below which a chunk counts as deflating.
  static constexpr double kMinRatio = 1.25;
  static constexpr unsigned kReprobe = 32;
  // Called once per chunk, in the order the chunks are written.
  bool deflate(hid_t dset);
  // A deflated chunk's sizes: decides the chunks that follow.
  void deflated(hid_t dset, std::size_t raw_bytes, std::size_t stored_bytes);

 private:
  struct State {
    bool raw = false;
    unsigned since = 0;  // chunks stored raw since the last probe
  };
  std::map<hid_t, State> state_;
};

// Chunks of several datasets (or of several blocks of one) deflated together on every CPU of
// the node, then written in the order they were added: a block of a group's columns holds
// one chunk of each numeric column (8,192 rows), and deflated column by column it ran on
// one thread. run() or the destructor (which drops what was not run) ends it.
class DeflateBatch {
 public:
  // memo: kept by a writer across its blocks (each a batch); nullptr: this batch's own.
  // threads: kept by a writer across its blocks too; nullptr: a pool of every CPU for the
  // run. A pool started and ended per block of a selection store's 10^6 winners (122 blocks)
  // was 6% of its write, most of it each thread's malloc cache given back at its exit.
  explicit DeflateBatch(ChunkMemo* memo = nullptr, WorkerPool* threads = nullptr)
      : memo_(memo ? memo : &own_memo_), threads_(threads) {}
  DeflateBatch(const DeflateBatch&) = delete;
  DeflateBatch& operator=(const DeflateBatch&) = delete;
  // Rows [first, first + n) of dset (chunk_filters(dset, chunk_rows) == filters, not none),
  // as write_deflated_rows takes them: `rows` stays valid until run().
  // Throws: DataError for rows that do not start or end on a chunk, naming `where`.
  void add(hid_t dset, ChunkFilters filters, const char* rows, std::size_t n, std::size_t row_bytes,
           std::size_t first, std::size_t chunk_rows, const std::string& where);
  // Bytes the batch keeps until it runs (rows for add made for this batch alone).
  const char* keep(std::vector<char> bytes);
  // Deflates and writes everything added. Throws: H5Error naming the dataset.
  void run();

 private:
  struct Rows {
    hid_t dset;
    ChunkFilters filters;
    const char* rows;
    std::size_t n, row_bytes, first, chunk_rows;
    std::string where;
  };
  std::vector<Rows> rows_;
  std::vector<std::vector<char>> owned_;
  ChunkMemo own_memo_;
  ChunkMemo* memo_;
  WorkerPool* threads_;
};

// The threads a writer deflates its blocks on (DeflateBatch): every CPU of the node's cpuset,
// unbound (under mpiexec the caller is bound to one core, and rank 0 writes its selection
// store while the other ranks wait on theirs); no more than `chunks`.
std::unique_ptr<WorkerPool> deflate_threads(std::size_t chunks = SIZE_MAX);

// Writes rows [first, first + n) of a numeric column through write_deflated_rows (or into
// `batch`, which then writes them) when they can go that way (shuffle_deflate, stored as
// `native`, whole chunks or the dataset's last) and returns true; false, writing nothing, when
// HDF5's own write must do it.
bool write_numbers_deflated(hid_t dset, hid_t native, const void* rows, std::size_t n,
                            std::size_t first, const std::string& where,
                            DeflateBatch* batch = nullptr);

// Writes rows [first, first + n) of a dataset whose chunk_filters are not `none` from `rows`
// (n rows of `row_bytes` each: with shuffle_deflate the element size). first is a multiple of
// the chunk; the last chunk written may hold fewer rows only when it is the dataset's last
// (HDF5 keeps a chunk whole: the rest is zeros). Throws: H5Error naming `where`; DataError for
// rows that do not start or end on a chunk.
void write_deflated_rows(hid_t dset, ChunkFilters filters, const char* rows, std::size_t n,
                         std::size_t row_bytes, std::size_t first, std::size_t chunk_rows,
                         const std::string& where);

}  // namespace perfit::io::detail
