// What the imports share (store_import.cpp, csv_import.cpp, csv_import_chunks.cpp): the
// target's checks and their messages, a set's provenance, --set-by's sets, and the rewrite of a
// store through a temporary file.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/csv_reader.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io::detail {

// "a, b, c" as a user wrote the names.
std::string column_list(const std::vector<std::string>& names);

// The one-line refusals of a throughput or target column, each naming o.csv (DataError).
[[noreturn]] void throw_no_throughput(const ImportOptions& o, const std::string& columns);
[[noreturn]] void throw_text_throughput(const ImportOptions& o, const std::string& first);
[[noreturn]] void throw_target_exists(const ImportOptions& o);
[[noreturn]] void throw_no_target(const ImportOptions& o, const std::string& columns);
[[noreturn]] void throw_text_target(const ImportOptions& o, const std::string& first);
// where: the first bad row ("line 12"); found: its value as the user sees it; bad: how many.
[[noreturn]] void throw_invalid_target(const ImportOptions& o, const std::string& where,
                                       const std::string& found, std::size_t bad);
[[noreturn]] void throw_all_invalid(const ImportOptions& o, std::size_t rows);

// Rows whose time is finite and > 0; bad: the others.
std::vector<bool> valid_targets(const std::vector<double>& v, std::size_t& bad);

// Checks the target column; drops invalid rows when asked. Returns rows dropped. `where` names
// a row in messages ("line 12" of a CSV file, "row 11" of a DataFrame).
std::size_t check_target(data::MeasurementTable& table, const ImportOptions& o,
                         const std::function<std::string(std::size_t)>& where);

// A set's attributes: framework, model, system from its path; source, target, unit.
data::Attributes provenance(const ImportOptions& o, const std::string& set);

// A set of that path is already in the store: refused, or appended to, or replaced.
void merge_existing(const ImportOptions& o, const StoreReader& old, const std::string& path,
                    data::MeasurementTable& table, ImportSummary& s);

// The old store's sets that this import leaves alone, into w: a pack none of whose sets is
// replaced is copied whole, the others' sets become tables of `kept` (written with the new ones).
void copy_others(const StoreReader& old, const std::set<std::string>& ours, StoreWriter& w,
                 std::vector<data::MeasurementTable>& kept, std::vector<std::string>& kept_names);

using NamedTables = std::vector<std::pair<std::string, data::MeasurementTable*>>;

// The store written through a temporary file renamed over o.store once `body` returns: body
// gets the writer and, when the store existed, a reader of it (its sets to copy or merge).
// Sets s.created_store.
void write_store(const ImportOptions& o, ImportSummary& s,
                 const std::function<void(StoreWriter& w, const StoreReader* old)>& body);

// Rewrites the store through a temporary file: its other sets copied, these written (appended
// to or replacing sets of the same path when the options say so).
void write_sets(const ImportOptions& o, const NamedTables& sets, ImportSummary& s);

// --throughput: the target column `work / throughput` added to the table (a throughput that is
// not finite and > 0 gives NaN, which the target check refuses or drops like any bad time).
void add_time_from_throughput(CsvTable& csv, const ImportOptions& o);

// What the user should know of the empty cells kept (the target's are said by its check).
std::vector<std::string> empty_cell_notes(const ImportOptions& o,
                                          const std::vector<EmptyCells>& empty);

// --set-by: the refusal of a file without the column; each row's value as it names its set
// (numbers as format_g prints them); the set of a value, refused (DataError naming the line of
// its first row) when the value cannot name one.
[[noreturn]] void throw_no_set_by(const ImportOptions& o, const std::vector<std::string>& columns);
std::vector<std::string> set_by_values(const data::Column& c);
std::string set_by_path(const ImportOptions& o, const std::string& value, std::size_t line);

// The rows a chunked import reads at a time (a file of 64 MiB or more, or PERFIT_TEST_HOOKS
// import_chunk_rows); 0: the file is read at once.
std::size_t chunk_rows(const ImportOptions& o);

// The import in chunks (csv_import_chunks.cpp). nullopt: --set-by found as many values as a
// pack holds, which a read at once writes (packed).
std::optional<ImportSummary> import_in_chunks(const ImportOptions& o, const CsvOptions& copts,
                                              std::size_t rows);

}  // namespace perfit::io::detail
