// Result and checkpoint files carry a CRC-32 of all their bytes in the HDF5 user block (the
// first 512 bytes of the file, which HDF5 and h5py skip). A truncated file or one flipped
// byte anywhere is refused before HDF5 parses it, instead of being read as valid: HDF5 checks
// only some of its metadata, and none of the raw data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace perfit::io {

inline constexpr std::size_t kSealBytes = 512;  // the user block size HDF5 is asked to leave

// Writes the seal into the user block of a closed HDF5 file created with a kSealBytes user
// block, then flushes the file to disk. Throws: IoError (disk full, permissions).
void seal_file(const std::string& path);

enum class SealState { sealed, unsealed };

// Checks the seal of `path` (`what` names the kind of file in messages, e.g. "result file").
// unsealed: the file begins with the HDF5 signature (written by a perfit older than the seal,
// or by another program) and cannot be checked, or it is no HDF5 file at all (the caller's
// file-kind check names it). Throws: DataError naming the file and what
// was found (truncated, checksum mismatch, damaged seal); IoError if it cannot be read.
// A file of more than crc_limit bytes has its size checked (truncation), not the CRC of every
// byte: a store of 10 GB would be read whole once more before each command's own reading (35 s
// on this machine), and its compressed chunks are checked by zlib's Adler-32 as they are read.
SealState verify_seal(const std::string& path, const std::string& what,
                      std::uint64_t crc_limit = std::numeric_limits<std::uint64_t>::max());

// The stores' crc_limit: 1 GiB (about 10^8 rows of perfit synth).
inline constexpr std::uint64_t kStoreCrcLimit = std::uint64_t{1} << 30;

// While one is alive, a file whose seal verified is not read again as long as its identity
// (device, inode, size, modification time) is unchanged: a command that opens one store for
// each of 10^4 sets checks its 33 MB once, not 3 x 10^4 times. perfit replaces files by
// rename (a new inode), so a rewrite is checked again. Not copyable; nests.
class SealMemo {
 public:
  SealMemo();
  ~SealMemo();
  SealMemo(const SealMemo&) = delete;
  SealMemo& operator=(const SealMemo&) = delete;
};

}  // namespace perfit::io
