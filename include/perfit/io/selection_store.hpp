// The winners of a selection over many sets (`perfit select --set GLOB --out DIR`, a batch
// manifest's `select:` entry) in one HDF5 file, DIR/selection.h5 (docs/result-format.md
// "Selection store"): one row per set in columnar tables, so that 10^5 winners are a few
// datasets rather than 10^5 files or groups. Each row reads back as the io::ResultFile that
// `perfit fit --out` would have written for that winner, minus the bootstrap replicates and
// the lambda curve, so show, predict, explain and recommend read it by set name.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/winner_configs.hpp"

namespace perfit::io {

// 2: each distinct run configuration once (/configs), a winner's row of them in /winners.
inline constexpr const char* kSelectionFormat = "perfit-selection-2";
// Read as well: a configuration per winner, /winners' config_yaml (before 2026-12-07).
inline constexpr const char* kSelectionFormatPerWinnerConfig = "perfit-selection-1";

// Writes every winner (each r.set distinct) and the run's description (root attributes, e.g.
// data_file, sets, criterion) to path, through a temporary name and a rename; sealed.
// Throws: ConfigError for two winners of one set; IoError / H5Error.
void write_selection_store(const std::string& path, std::vector<const ResultFile*> winners,
                           const data::Attributes& about);
// Winner i's record (io/winner_record.hpp): a view of bytes the caller keeps, or of `scratch`,
// which the call may fill (a record, or a window on a selection's journal), valid until the
// next call with it.
using WinnerRecords = std::function<std::string_view(std::size_t i, std::string& scratch)>;
// The same with n winners given one at a time as their records, i = 0 .. n-1 in order of their
// sets, so that they need not all be held as results (10^5 winners of a few KB each); record
// is called from several threads at once, each with a scratch of its own. text_widths: the
// longest text of each field over every winner (widen_to_record as they came); named: the
// configurations records name by number (io/winner_record.hpp RecordConfig). Throws: as above,
// ConfigError for winners out of set order, DataError for a malformed record, a text wider
// than text_widths says or a configuration number past `named`.
void write_selection_store(const std::string& path, std::size_t n, const WinnerRecords& record,
                           const data::Attributes& about,
                           const std::map<std::string, std::size_t>& text_widths,
                           const std::vector<WinnerConfigs::Entry>* named = nullptr);

// The sets that have a winner, sorted. Throws: DataError if path is not a selection store.
std::vector<std::string> selection_sets(const std::string& path);

// The winner of one set. Throws: DataError naming the set and a few that are there.
ResultFile read_selection_result(const std::string& path, const std::string& set);

// Every winner, in set order (a resumed run takes them back), one block of the store in memory
// at a time. Throws: as read_selection_result.
void for_each_selection_winner(const std::string& path,
                               const std::function<void(ResultFile&&)>& each);

// What show, predict, explain and recommend read: a result file (set empty, or the set that
// file holds), or set's winner in a selection store. Throws: as read_result_file; DataError
// for a selection store without a set ("pass --set").
ResultFile read_result(const std::string& path, const std::string& set);

}  // namespace perfit::io
