// What world rank 0 keeps of a selection over many sets (select --set GLOB, a batch's
// `select:` entries): one summary row per set, in set order, and each winner's result; written
// as DIR/selection.h5 (the winners, io/selection_store.hpp), DIR/selection.csv (one row per set,
// each constant in its own column) and DIR/selection.json. Winners (their records) and rows
// (their text, select/row_text.hpp) are held as bytes in the selection's journal
// (io/selection_journal.hpp) and read back one at a time when written.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfit/io/record_spill.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/selection_journal.hpp"
#include "perfit/io/winner_configs.hpp"

namespace perfit::select {

struct RowText;

class SelectionLedger {
 public:
  using Row = nlohmann::ordered_json;

  // Every set starts as {"set": S, "status": "pending"}. about: the run's description (data,
  // sets, criterion), the top of selection.json and the store's root attributes. Rows and
  // winners go to the journal dir/.selection.journal (journal: the selection's checkpoint,
  // named once commit_journal() is called) or to an unnamed file in dir.
  // Throws: IoError naming dir or the journal.
  SelectionLedger(std::vector<std::string> sets, Row about, const std::string& dir, bool journal);

  // Row i, as render_row (select/row_text.hpp) made it from a set's {"set", "status", ...};
  // its winner's record (io/winner_record.hpp), if not empty, becomes the set's winner.
  // Both go to the journal. A record may name its run configuration by number
  // (io/winner_record.hpp RecordConfig): `carried` holds the journal's number of each one the
  // records before it in its chunk carried in full, and learns this one's. Throws: DataError
  // for bytes render_row or winner_record did not write, or a number `carried` lacks.
  using Carried = std::vector<std::size_t>;
  void set(std::size_t i, std::string_view row_text, std::string_view record, Carried& carried);
  void set(std::size_t i, std::string_view row_text, std::string_view record) {
    Carried alone;
    set(i, row_text, record, alone);
  }
  bool ok(std::size_t i) const { return status_[i] == kOk; }
  std::size_t count(const std::string& status) const;
  std::size_t size() const { return rows_.size(); }
  Row row(std::size_t i) const;   // parsed from its text
  std::vector<Row> rows() const;  // every row parsed: for a table on the terminal
  // selection.json's document, about and `extra`'s fields then the rows, one row at a time in
  // selection.json's layout (select --json over 10^6 sets: no parsed document of them all).
  void write_json(std::ostream& out, const Row& extra) const;

  // --resume: the ok rows of an earlier run in dir (and their winners) for the same sets: from
  // its journal when it left one (killed), which this run's journal then continues (its
  // entries stay where they are, a torn tail cut off), else from its files. Returns how many
  // were taken.
  // Throws: DataError for files in dir that perfit did not write.
  std::size_t load(const std::string& dir);
  // The journal under its name, replacing an earlier run's: after load() (nothing to do when it
  // continued an earlier run's journal).
  void commit_journal() { journal_.commit(); }
  // The journal's new rows in its file (a checkpoint).
  void flush_journal() const { journal_.flush(); }
  // The three files, each through a temporary name and a rename; then the journal, which they
  // now hold, removed.
  void write(const std::string& dir);

 private:
  // Row i's text is at `row` in the journal: its status and constants noted.
  void note(std::size_t i, const RowText& t, io::RecordSpill::Where row);
  // A journaled record's configuration: learnt when carried in full, else checked against
  // those before it. Throws: DataError naming the journal.
  void learn_config(std::string_view record, const std::string& journal);
  std::string text_of(std::size_t i) const;  // row i's text (a pending row's made now)
  // selection.csv's constant columns: the union over the rows, in order of first appearance.
  std::vector<std::string> constants() const;

  // Where each row's text is in the journal (size 0: pending): 10^6 rows held in memory as
  // CBOR were ~400 MB.
  std::vector<io::RecordSpill::Where> rows_;
  std::vector<std::string> sets_;
  // Each row's status as its place in statuses_ (a string per row was 32 MB to make at the
  // start of a selection over 10^6 sets), and the rows of each: progress asks every few seconds.
  static constexpr std::uint8_t kPending = 0, kOk = 1;
  std::vector<std::string> statuses_{"pending", "ok", "error"};
  std::vector<std::uint8_t> status_;
  std::vector<std::size_t> counts_;
  std::uint8_t status_id(std::string_view status);
  std::unordered_map<std::string, std::size_t> index_;  // made by index(), for load()
  const std::unordered_map<std::string, std::size_t>& index();
  // Each constant's first appearance (row, place in its row), noted as rows come: the text
  // files are written in one pass.
  std::map<std::string, std::pair<std::size_t, std::size_t>> constant_first_;
  bool result_files_ = false;
  bool extrap_origin_ = false;  // Extra-P sets: callpath and metric columns
  io::SelectionJournal journal_;
  // Row i's winner's record (io/winner_record.hpp) in the journal; size 0: none. By row, not
  // by name: an ordered map of 10^6 names cost a search per winner on rank 0's serving thread
  // and a tenth of a second to free at the end.
  std::vector<io::RecordSpill::Where> winners_;
  std::map<std::string, std::size_t> widths_;  // each text field's longest value over the records
  // The run configurations the journal's records carried in full, in its order: what the
  // numbers of the others name. A record journaled carries its configuration only when new.
  io::WinnerConfigs configs_;
  Row about_;
};

// The output files of a selection in dir: checked before the first selection (a file of
// another kind, or one of ours without `replace`, is refused).
// Throws: ConfigError / IoError naming the file.
void check_selection_outputs(const std::string& dir, const std::string& data, bool replace);

}  // namespace perfit::select
