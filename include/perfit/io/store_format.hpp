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
// Numbers of a plain group (a result's or selection store's tables): 64 KiB chunks, so that a
// selection store's /winners, written 8,192 rows at a time, is written in whole chunks
// (deflated on threads: io/deflated_chunks.hpp), and one winner's row inflates 64 KiB.
inline constexpr std::size_t kGroupChunkRows = 8192;
inline constexpr unsigned kDeflateLevel = 1;  // fast; grids compress well even at 1

}  // namespace perfit::io

namespace perfit::io {

// Packed sets (docs/hdf5-format.md "Packed sets"): many small sets of the same columns in
// shared tables under /@packs/<n> ('@' is never part of a set path). An import of at least
// kPackMinSets such sets packs them: one group and three datasets per set is ~2 KB of HDF5
// metadata, 10x the values of an Extra-P call path.
inline constexpr const char* kPackRoot = "/@packs";
inline constexpr const char* kPackAttribute = "perfit_pack";
inline constexpr const char* kPackVersion = "perfit-pack-1";
inline constexpr std::size_t kPackMinSets = 64;
// Small chunks: reading one set of a pack decompresses one or two chunks, not 512 KiB.
inline constexpr std::size_t kPackChunkRows = 1024;

}  // namespace perfit::io
