// Private to io/: whole chunks of a deflated dataset compressed on several threads and written
// as they are (H5Dwrite_chunk), instead of by HDF5's filter pipeline on the calling thread. A
// selection store's text columns (each winner's run configuration, ~1 KB) are most of its
// bytes, and deflating them was most of the time its write took. The chunks are the ones the
// pipeline would have made: any HDF5 reader (h5py) inflates them with the same filter.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>

namespace perfit::io::detail {

// True when rows of `dset` can go through write_deflated_rows: a 1-D dataset chunked by
// chunk_rows whose only filter is deflate.
bool deflate_only(hid_t dset, std::size_t chunk_rows);

// Writes rows [first, first + n) of a deflate_only dataset from `rows` (n rows of `row_bytes`
// each). first is a multiple of the chunk; the last chunk written may hold fewer rows only when
// it is the dataset's last (HDF5 keeps a chunk whole: the rest is zeros). Throws: H5Error naming
// `where`; DataError for rows that do not start or end on a chunk.
void write_deflated_rows(hid_t dset, const char* rows, std::size_t n, std::size_t row_bytes,
                         std::size_t first, std::size_t chunk_rows, const std::string& where);

}  // namespace perfit::io::detail
