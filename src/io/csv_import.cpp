// `perfit import` of a CSV file read at once (import_in_chunks: the file in chunks).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "import_common.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/csv_reader.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

using namespace detail;

namespace detail {

std::vector<std::string> empty_cell_notes(const ImportOptions& o,
                                          const std::vector<EmptyCells>& empty) {
  std::vector<std::string> notes;
  for (const auto& e : empty) {
    if (e.column == o.target) continue;  // the target check has said what became of those rows
    notes.push_back("'" + o.csv + "' column '" + e.column + "': " + std::to_string(e.count) +
                    " empty cell(s), the first on line " + std::to_string(e.first_line) +
                    ", kept as missing (NaN); a fit that reads the column refuses "
                    "them unless --drop-invalid drops their rows");
  }
  return notes;
}

void add_time_from_throughput(CsvTable& csv, const ImportOptions& o) {
  const data::Column* t = csv.table.find(o.throughput);
  if (!t) throw_no_throughput(o, column_list(csv.table.column_names()));
  if (!t->is_numeric()) throw_text_throughput(o, t->str().front());
  if (csv.table.find(o.target)) throw_target_exists(o);
  std::vector<double> time = t->to_double();
  for (double& v : time) {
    v = std::isfinite(v) && v > 0.0 ? o.work / v : std::numeric_limits<double>::quiet_NaN();
  }
  csv.table.add_column(data::Column(o.target, std::move(time)));
}

void throw_no_set_by(const ImportOptions& o, const std::vector<std::string>& columns) {
  throw DataError("'" + o.csv + "' has no column '" + o.set_by +
                  "' to split into sets (--set-by); its columns: " + column_list(columns));
}

std::vector<std::string> set_by_values(const data::Column& c) {
  std::vector<std::string> out;
  if (!c.is_numeric()) return c.str();
  for (const double v : c.to_double()) out.push_back(format_g(v));
  return out;
}

std::string set_by_path(const ImportOptions& o, const std::string& value, std::size_t line) {
  const std::string path = o.set + "/" + value;
  try {
    validate_set_path(path);
  } catch (const ConfigError&) {
    throw DataError("'" + o.csv + "' line " + std::to_string(line) + " column '" + o.set_by +
                    "': value '" + value +
                    "' cannot name a set (letters, digits and . _ + - only); rename it in the "
                    "file, or import without --set-by and fit with --by " +
                    o.set_by + ", which keeps any value");
  }
  return path;
}

}  // namespace detail

namespace {

// --set-by: the rows of each value of the column as set/<value>, values in sorted order.
std::vector<std::pair<std::string, data::MeasurementTable>> split_by_column(
    const ImportOptions& o, const data::MeasurementTable& t,
    const std::vector<std::size_t>& line_of_row) {
  const data::Column* c = t.find(o.set_by);
  if (!c) throw_no_set_by(o, t.column_names());
  // Each value's rows in one pass (10^4 values of 5*10^5 rows: a copy of the table per value
  // was quadratic, 24 GB and the OOM killer).
  const std::vector<std::string> values = set_by_values(*c);
  std::map<std::string, std::vector<std::size_t>> rows_of;  // sorted by value
  for (std::size_t i = 0; i < t.rows(); ++i) rows_of[values[i]].push_back(i);
  std::vector<std::pair<std::string, data::MeasurementTable>> out;
  for (const auto& [v, rows] : rows_of) {
    const std::string path = set_by_path(o, v, line_of_row[rows.front()]);
    data::MeasurementTable part = t.take_rows(rows);
    part.attributes() = provenance(o, path);
    out.emplace_back(path, std::move(part));
  }
  return out;
}

}  // namespace

ImportSummary import_csv(const ImportOptions& o) {
  o.validate();
  ImportSummary s;
  CsvOptions copts;
  copts.categorical = o.categorical;
  copts.delimiter = o.delimiter;
  if (const std::size_t rows = chunk_rows(o); rows > 0) {
    if (std::optional<ImportSummary> chunked = import_in_chunks(o, copts, rows)) return *chunked;
  }
  CsvTable csv = read_csv(o.csv, copts);
  s.rows_read = csv.table.rows();
  if (!o.throughput.empty()) add_time_from_throughput(csv, o);
  s.rows_dropped = check_target(
      csv.table, o, [&csv](std::size_t i) { return "line " + std::to_string(csv.line_of_row[i]); });
  s.notes = empty_cell_notes(o, csv.empty);
  data::MeasurementTable table = std::move(csv.table);
  if (!o.set_by.empty()) {
    std::vector<std::pair<std::string, data::MeasurementTable>> parts =
        split_by_column(o, table, csv.line_of_row);
    NamedTables sets;
    for (auto& [name, part] : parts) {
      sets.emplace_back(name, &part);
      s.sets.push_back(name);
    }
    write_sets(o, sets, s);  // with --append, each part gains its set's earlier rows
    for (const auto& part : parts) {
      s.rows_in_sets.push_back(part.second.rows());
      s.rows_in_set += part.second.rows();
    }
    return s;
  }
  table.attributes() = provenance(o, o.set);
  write_sets(o, {{o.set, &table}}, s);
  s.rows_in_set = table.rows();
  return s;
}

}  // namespace perfit::io
