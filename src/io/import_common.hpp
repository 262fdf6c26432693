// What the imports share (store_import.cpp, csv_import.cpp): the target's checks and their
// messages, a set's provenance, and the rewrite of a store through a temporary file.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "perfit/data/measurement_table.hpp"
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

}  // namespace perfit::io::detail
