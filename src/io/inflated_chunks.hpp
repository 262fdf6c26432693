// Private to io/: rows of a deflated numeric column read chunk by chunk as they are stored
// (H5Dread_chunk) and inflated by libdeflate, instead of by HDF5's filter pipeline (zlib). A fit
// streaming a store larger than memory spent over half its time in zlib's inflate and Adler-32;
// libdeflate reads the same zlib streams (the ones perfit writes and any other HDF5 writer's)
// at 2-3x the speed. Any dataset or chunk this path does not know is left to HDF5, whose answer
// (values, or the error naming a damaged chunk) stays the one users see.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>

namespace perfit::io::detail {

// Rows [first, first + n) of a 1-D chunked dataset of 64-bit integers or doubles (in the
// memory's byte order) filtered by deflate, or shuffle then deflate, into `out`; integers to
// doubles as HDF5 converts them (a C cast). Chunks stored with their filters skipped are read as
// they are. False, with `out` partly written, for anything else: another layout, type or
// filter, a chunk never written, over 64 MiB, or one that does not inflate to its size.
bool read_inflated(hid_t dset, std::size_t first, std::size_t n, double* out);
bool read_inflated(hid_t dset, std::size_t first, std::size_t n, std::int64_t* out);

}  // namespace perfit::io::detail
