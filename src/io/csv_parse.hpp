// What read_csv and CsvChunks share: a line split into fields, the header and its checks, a data
// row, and a column filled (or, in a first pass, only typed) as the file streams.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/csv_chunks.hpp"
#include "perfit/io/csv_reader.hpp"

namespace perfit::io::detail {

struct Fields {
  std::vector<std::string> text;
  std::vector<bool> quoted;  // per field: written in quotes
};

// One column being filled while the file streams. keep = false: the values are parsed and
// checked but not kept (a first pass that learns the column's type); watch: each numeric value
// (NaN for an empty cell) is counted as PositiveCount says.
struct Builder {
  enum class Kind { undecided, int64, float64, text };
  std::string name;
  bool forced_text = false;
  bool suggest_categorical = true;
  bool keep = true;
  PositiveCount* watch = nullptr;
  double watch_work = 0.0;  // > 0: the watched value is work / the cell (a throughput)
  Kind kind = Kind::undecided;
  std::string first_text;         // a text column's first value ("" after leading empty cells)
  std::size_t leading_empty = 0;  // empty cells before the first value
  std::size_t first_line = 0;
  std::size_t empties = 0, first_empty_line = 0;  // every empty cell (numeric columns report them)
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> texts;

  void add(const std::string& written, bool quoted, std::size_t line, const std::string& file);
  data::Column finish(std::size_t rows);
  bool numeric() const { return kind == Kind::int64 || kind == Kind::float64; }

 private:
  void to_float();
  void see(double value, std::size_t line);
};

// The header row (blank lines and a UTF-8 byte-order mark skipped); line_no: its line.
// Throws: DataError naming the file and line for an empty file, an unterminated quote or a
// header separated by another delimiter.
std::vector<std::string> read_header(std::istream& in, const std::string& path,
                                     const CsvOptions& options, std::size_t& line_no);

// A builder per header column. Throws: DataError for an empty or repeated name, ConfigError
// for a --categorical column the header lacks.
std::vector<Builder> make_builders(const std::vector<std::string>& header,
                                   const CsvOptions& options, const std::string& path,
                                   std::size_t line_no);

// The next data row (blank lines skipped), nullopt at the end of the file; line_no: its line.
// Throws: DataError for an unterminated quote or a row of another width than the header.
std::optional<Fields> next_row(std::istream& in, const std::string& path, char delimiter,
                               std::size_t columns, std::size_t& line_no);

}  // namespace perfit::io::detail
