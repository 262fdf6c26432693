// A selection's finished sets as they come, appended to one file: each set's row text
// (select/row_text.hpp) and winner's record (io/winner_record.hpp), framed and checksummed.
// With --out DIR it is DIR/.selection.journal, the selection's checkpoint: a kill -9 loses at
// most what came since the last flush (1 MiB at most, and at most one checkpoint interval), and a
// checkpoint costs a write of what is new, not a rewrite of every set so far (at 10^6 sets one
// rewrite of the selection files held rank 0 for 17 s). Without a directory it has no name, and
// holds the bytes until they are written.
//
// Layout (little-endian): 8 bytes "PFSELJ01", then per set a 32-byte header (4 bytes "PFJE",
// the CRC-32 of the rest of the header and of the three strings, the lengths of the set's
// name, its row and its record as 8 bytes each) and the three strings.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "perfit/io/atomic_output.hpp"
#include "perfit/io/record_spill.hpp"

namespace perfit::io {

class SelectionJournal {
 public:
  using Where = RecordSpill::Where;
  struct Entry {
    Where row, record;
  };

  // dir/.selection.journal (named: its bytes outlive the process), first under a temporary
  // name that commit() renames; or, not named, an unnamed file in dir.
  // Throws: IoError naming the file or dir.
  SelectionJournal(const std::string& dir, bool named);

  Entry append(std::string_view set, const std::string& row, const std::string& record);
  std::string read(Where w) const { return spill_.read(w); }
  // What was appended, in the file (it survives the process; like every file perfit writes,
  // the kernel puts it on the disk).
  void flush() const { spill_.flush(); }
  // The journal under its name, replacing an earlier run's (whose sets a resume took first).
  void commit();
  // The journal's file removed: the selection files now hold every set it held.
  void remove();

  // Calls fn(set, row, record) for each whole entry of the journal at path, in order; an
  // entry cut short or damaged (the process killed while writing it) ends the replay there,
  // with a warning. Returns the entries replayed; nullopt when there is no file.
  // Throws: DataError naming the file when it is not a journal this perfit writes.
  static std::optional<std::size_t> replay(
      const std::string& path,
      const std::function<void(std::string_view set, const std::string& row,
                               const std::string& record)>& fn);
  static std::string path_in(const std::string& dir);

 private:
  std::unique_ptr<AtomicOutput> named_;  // until commit(): the temporary name
  std::string path_;                     // "" : unnamed
  RecordSpill spill_;
  bool committed_ = false;
};

}  // namespace perfit::io
