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
#include <cstdint>
#include <functional>
#include <initializer_list>
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

  // The record may come in parts (one with its configuration replaced: io/winner_record.hpp).
  Entry append(std::string_view set, std::string_view row,
               std::initializer_list<std::string_view> record);
  std::string read(Where w) const { return spill_.read(w); }
  // Every entry so far, read back by position (RecordSpill::reader): the end of a run reads
  // them all.
  ReadWindow reader() const { return spill_.reader(); }
  // What was appended, in the file (it survives the process; like every file perfit writes,
  // the kernel puts it on the disk).
  void flush() const { spill_.flush(); }
  // The journal under its name, replacing an earlier run's (whose sets a resume took first).
  void commit();
  // The journal's file removed: the selection files now hold every set it held.
  void remove();

  // What replay() took: its whole entries, and the bytes they and the file's first bytes fill
  // (where a torn tail begins).
  struct Replayed {
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
  };
  using Visit = std::function<void(std::string_view set, std::string_view row,
                                   std::string_view record, Entry at)>;
  // Calls fn(set, row, record, where row and record are) for each whole entry of the journal
  // at path, in order, the bytes in place (valid during the call); an entry cut short or
  // damaged (the process killed while writing it) ends the replay there, with a warning.
  // nullopt when there is no file.
  // Throws: DataError naming the file when it is not a journal this perfit writes.
  static std::optional<Replayed> replay(const std::string& path, const Visit& fn);
  // Before any append: this journal becomes the one a killed run left in dir, replay()'s
  // whole entries kept where they are (the torn tail cut off) and new ones appended after
  // them. A resume at 10^6 sets copied 3.6 GB of entries into a new journal: most of its 20 s.
  // Throws: IoError naming the file.
  void continue_in(const std::string& dir, const Replayed& taken);
  static std::string path_in(const std::string& dir);

 private:
  std::unique_ptr<AtomicOutput> named_;  // until commit(): the temporary name
  std::string path_;                     // "" : unnamed
  RecordSpill spill_;
  bool committed_ = false;
};

}  // namespace perfit::io
