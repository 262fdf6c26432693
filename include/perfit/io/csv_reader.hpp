// Reads a CSV file of measurements into a MeasurementTable. The header row names the
// columns; a column's type comes from its first non-empty value (integer, float or text),
// and every later value must fit it, so a stray "n/a" in a time column is an error with its
// line, not a silently categorical column. Streams the file: no copy of the raw text is kept.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::io {

struct CsvOptions {
  char delimiter = ',';
  std::vector<std::string> categorical;  // columns forced to text
  bool keep_text = false;                // also keep every field as written (small files)
  bool suggest_categorical = true;       // a non-number in a numeric column: suggest --categorical
};

// A numeric column's empty cells, read as missing (NaN).
struct EmptyCells {
  std::string column;
  std::size_t count = 0, first_line = 0;
};

struct CsvTable {
  data::MeasurementTable table;
  std::vector<std::size_t> line_of_row;        // 1-based file line of each row (header is line 1)
  std::vector<std::vector<std::string>> text;  // with keep_text: each row's fields as written
  std::vector<EmptyCells> empty;               // numeric columns with empty cells, in header order
};

// Empty numeric cells become NaN (an int64 column with one becomes float64).
// Throws: IoError if unreadable; DataError naming the file, line and column for an empty file,
// a duplicate or empty header name, a ragged row, an unterminated quote, or a non-numeric
// value in a numeric column.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace perfit::io
