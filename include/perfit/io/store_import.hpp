// `perfit import`: a CSV file becomes a set of a store. The new store is assembled in a
// temporary file (other sets copied, this one written) and renamed over the old one, so any
// error leaves STORE.h5 exactly as it was.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::io {

struct ImportOptions {
  std::string csv;             // the input file (CSV, or Extra-P text with format extrap)
  std::string format = "csv";  // csv | extrap
  std::string store;
  std::string set;  // /<framework>/<model>[/<system>]; with set_by its first one or two levels
  // One set per value of this column, named set/<value> (a value is kept as written; one that
  // cannot be a set name is refused). Empty: every row into `set`.
  std::string set_by;
  std::string target;  // measured-time column (with throughput: the time column to create)
  // Public benchmark tables report throughput (samples/s): with `throughput` naming that
  // column, the set gets target = work / throughput, the time to process `work` samples.
  std::string throughput;
  double work = 0;
  std::string unit = "s";
  std::string source;  // provenance; defaults to the CSV path
  bool append = false;
  bool replace = false;
  bool drop_invalid = false;
  std::vector<std::string> categorical;
  char delimiter = ',';
  // Throws: ConfigError for a bad set path (or prefix, with set_by), empty target, --append
  // with --replace, set_by with the extrap format, or
  // --throughput without a finite --work > 0 (or the reverse).
  void validate() const;
};

struct ImportSummary {
  std::size_t rows_read = 0;
  std::size_t rows_dropped = 0;  // invalid targets dropped by --drop-invalid
  std::size_t rows_in_set = 0;   // after append (with set_by: summed over the sets)
  bool created_store = false;
  bool appended = false;
  bool replaced = false;
  std::vector<std::string> sets;          // the sets written
  std::vector<std::size_t> rows_in_sets;  // with set_by: each set's rows (as sets)
  std::vector<std::string> notes;  // what the user should know of the rows kept (empty cells)
};

// Throws: ConfigError, DataError, IoError, H5Error (each message names file, line, column).
ImportSummary import_csv(const ImportOptions& options);

// import_table's checks of a table built in memory, without writing it: the target column
// (numeric, finite and > 0; invalid rows dropped with options.drop_invalid). Returns the rows
// dropped. Throws: ConfigError, DataError naming options.csv and the row.
std::size_t check_table(const ImportOptions& options, data::MeasurementTable& table);

// A table built in memory (the Python package's write_store) as a set, with import_csv's checks
// and layout: options.csv names it in messages and in the set's `source`, a bad target is
// reported by row index. Throws: as import_csv.
ImportSummary import_table(const ImportOptions& options, data::MeasurementTable table);

// Extra-P's text format (io/extrap_reader.hpp): one set per region x metric, named
// <set>/<region>[/<metric>] (characters other than letters, digits, . _ - become _), a column
// per parameter and the target `value`. options.set is one level ("/myapp"); target, throughput
// and categorical do not apply. Throws: as import_csv, and for a value that is not > 0 (unless
// drop_invalid).
ImportSummary import_extrap(const ImportOptions& options);

}  // namespace perfit::io
