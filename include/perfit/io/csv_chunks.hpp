// A CSV file too large to hold, read in two passes: the first types each column over the whole
// file (with every check and message of read_csv) and counts its rows and empty cells; then
// chunks of rows are parsed again, each column of the type the whole file gives it, so that the
// chunks concatenated equal read_csv's table. Memory grows with a chunk, not the file.
#pragma once

#include <cstddef>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/csv_reader.hpp"

namespace perfit::io {

namespace detail {
struct Builder;
}

// The rows whose value in a watched numeric column is not a finite number > 0 (with a work
// > 0: whose work / value is not), counted in the first pass: an import's target check
// without the column held.
struct PositiveCount {
  std::size_t bad = 0, first_line = 0;
  double first_value = std::numeric_limits<double>::quiet_NaN();  // as read (NaN: empty)
};

struct CsvWatch {
  std::string column;  // empty: none
  double work = 0.0;
};

class CsvChunks {
 public:
  // The first pass. Throws: as read_csv.
  CsvChunks(std::string path, CsvOptions options, CsvWatch watch = {});
  ~CsvChunks();
  CsvChunks(const CsvChunks&) = delete;
  CsvChunks& operator=(const CsvChunks&) = delete;

  std::size_t rows() const { return rows_; }
  const std::vector<EmptyCells>& empty() const { return empty_; }
  const std::vector<std::string>& header() const { return header_; }
  // A column's type over the whole file (every cell empty: float64); nullopt: no such column.
  std::optional<data::ColumnType> type(const std::string& column) const;
  // A text column's first value, as read_csv's column holds it.
  std::string first_text(const std::string& column) const;
  const PositiveCount& watched() const { return watched_; }

  // The next (up to) n rows, read again; a table of no rows after the last.
  // Throws: DataError if the file changed since the first pass.
  CsvTable next(std::size_t n);
  // The next call of next() reads from the first row again (a pass that counts before one
  // that writes).
  void rewind() {
    in_.reset();
    given_ = 0;
  }

 private:
  std::string path_;
  CsvOptions options_;
  std::vector<std::string> header_;
  std::vector<detail::Builder> typed_;  // the first pass's builders (types, first values)
  std::vector<EmptyCells> empty_;
  PositiveCount watched_;
  std::size_t rows_ = 0, given_ = 0, line_no_ = 0;
  std::unique_ptr<std::ifstream> in_;  // the second pass
};

}  // namespace perfit::io
