// The on-disk layout of a perfit measurement store (docs/hdf5-format.md). A set is a group
// `/<framework>/<model>[/<system>]` carrying the attribute perfit_format; each column is a
// 1-D dataset of that group (float64, int64, or variable-length UTF-8 strings).
#pragma once

#include <cstddef>

namespace perfit::io {

inline constexpr const char* kFormatAttribute = "perfit_format";
inline constexpr const char* kFormatVersion = "perfit-store-1";
// Columns of at least this many rows are chunked and compressed (shuffle + deflate):
// below it the chunk index costs more than compression saves.
inline constexpr std::size_t kChunkThresholdRows = 8192;
inline constexpr std::size_t kChunkRows = 65536;  // 512 KiB of float64 per chunk
inline constexpr unsigned kDeflateLevel = 1;      // fast; grids compress well even at 1

}  // namespace perfit::io
