#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "import_common.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/test_hooks.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/csv_chunks.hpp"
#include "perfit/io/csv_reader.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_import.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

using namespace detail;

namespace {

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

// --throughput: the target column `work / throughput` is added to the table (a throughput that
// is not finite and > 0 gives NaN, which check_target refuses or drops like any bad time).
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

// --set-by: the rows of each value of the column as set/<value>, values in sorted order.
std::vector<std::pair<std::string, data::MeasurementTable>> split_by_column(
    const ImportOptions& o, const data::MeasurementTable& t,
    const std::vector<std::size_t>& line_of_row) {
  const data::Column* c = t.find(o.set_by);
  if (!c)
    throw DataError(
        "'" + o.csv + "' has no column '" + o.set_by +
        "' to split into sets (--set-by); its columns: " + column_list(t.column_names()));
  // Each value's rows in one pass (10^4 values of 5*10^5 rows: a copy of the table per value
  // was quadratic, 24 GB and the OOM killer).
  const std::vector<double> numbers = c->is_numeric() ? c->to_double() : std::vector<double>{};
  std::map<std::string, std::vector<std::size_t>> rows_of;  // sorted by value
  for (std::size_t i = 0; i < t.rows(); ++i)
    rows_of[c->is_numeric() ? format_g(numbers[i]) : c->str()[i]].push_back(i);
  std::vector<std::pair<std::string, data::MeasurementTable>> out;
  for (const auto& [v, rows] : rows_of) {
    const std::string path = o.set + "/" + v;
    const std::size_t first = rows.front();
    try {
      validate_set_path(path);
    } catch (const ConfigError&) {
      throw DataError("'" + o.csv + "' line " + std::to_string(line_of_row[first]) + " column '" +
                      o.set_by + "': value '" + v +
                      "' cannot name a set (letters, digits and . _ + - only); rename it in the "
                      "file, or import "
                      "without --set-by and fit with --by " +
                      o.set_by + ", which keeps any value");
    }
    data::MeasurementTable part = t.take_rows(rows);
    part.attributes() = provenance(o, path);
    out.emplace_back(path, std::move(part));
  }
  return out;
}

// A CSV file at least this large is imported in chunks (CsvChunks: two passes over the file,
// memory for one chunk of rows and the columns' types), unless --set-by needs its rows at once
// (--append to an existing set copies the set's rows first, a chunk at a time). A 55 MB log
// of 1.5*10^6 rows: at once 226 MB and 3.2 s, in chunks of 2^16 rows 57 MB and 2.4 s (of 2^20 rows
// 200 MB: a text column's strings). PERFIT_TEST_HOOKS import_chunk_rows=N forces it at any size, N
// rows a chunk.
constexpr std::uintmax_t kChunkedImportBytes = std::uintmax_t{64} << 20;
constexpr std::size_t kDefaultChunkRows = std::size_t{1} << 16;

// The rows a chunked import reads at a time; 0: the file is read at once.
std::size_t chunk_rows(const ImportOptions& o) {
  if (!o.set_by.empty()) return 0;
  const double hook = test_hook(kImportChunkRows);
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(o.csv, ec);
  if (hook <= 0 && (ec || bytes < kChunkedImportBytes)) return 0;
  return hook > 0 ? static_cast<std::size_t>(hook) : kDefaultChunkRows;
}

// A value of a column of type t as the column would print it.
std::string value_text(data::ColumnType t, double v) {
  if (t == data::ColumnType::int64)
    return data::Column("v", std::vector<std::int64_t>{static_cast<std::int64_t>(v)}).value_text(0);
  return data::Column("v", std::vector<double>{v}).value_text(0);
}

// import_csv's checks on the first pass's types and counts, in the same words.
void check_chunked(const ImportOptions& o, const CsvChunks& csv) {
  const std::string columns = column_list(csv.header());
  if (!o.throughput.empty()) {
    const auto t = csv.type(o.throughput);
    if (!t) throw_no_throughput(o, columns);
    if (*t == data::ColumnType::string) throw_text_throughput(o, csv.first_text(o.throughput));
    if (csv.type(o.target)) throw_target_exists(o);
  } else {
    const auto t = csv.type(o.target);
    if (!t) throw_no_target(o, columns);
    if (*t == data::ColumnType::string) throw_text_target(o, csv.first_text(o.target));
  }
  const PositiveCount& bad = csv.watched();
  if (bad.bad > 0 && !o.drop_invalid) {
    const std::string& watched = o.throughput.empty() ? o.target : o.throughput;
    const std::string found = o.throughput.empty() && std::isnan(bad.first_value)
                                  ? "NaN or empty"
                                  : value_text(*csv.type(watched), bad.first_value);
    throw_invalid_target(o, "line " + std::to_string(bad.first_line), found, bad.bad);
  }
  if (bad.bad == csv.rows()) throw_all_invalid(o, csv.rows());
}

// --append to a set the store has, in chunks: the set's columns keep its order, and each the
// type read at once would give it (numbers of both kinds float64, text only with text).
struct Appended {
  std::vector<ColumnInfo> columns;
  data::Attributes attributes;
  std::size_t rows = 0;
};

Appended appended_to(const ImportOptions& o, const StoreReader& old,
                     const std::vector<ColumnInfo>& fresh) {
  const SetInfo info = old.info(o.set);
  const std::string target = info.attributes.count("target")
                                 ? data::attribute_text(info.attributes.at("target"))
                                 : std::string();
  if (target != o.target) {
    throw DataError("'" + o.store + "' set '" + o.set + "' has target '" + target +
                    "', the import says --target " + o.target);
  }
  const auto type_of = [&](const std::string& name) -> const ColumnInfo* {
    for (const auto& c : fresh) {
      if (c.name == name) return &c;
    }
    return nullptr;
  };
  std::vector<std::string> old_names;
  for (const auto& c : info.columns) old_names.push_back(c.name);
  for (const auto& c : fresh) {
    if (std::find(old_names.begin(), old_names.end(), c.name) == old_names.end()) {
      throw DataError(
          "new rows have column '" + c.name +
          "' which the existing set lacks; existing columns: " + column_list(old_names));
    }
  }
  std::vector<std::string> new_names;
  for (const auto& f : fresh) new_names.push_back(f.name);
  Appended a;
  for (const auto& c : info.columns) {
    const ColumnInfo* n = type_of(c.name);
    if (!n) {
      throw DataError("new rows lack column '" + c.name +
                      "' of the existing set; new columns: " + column_list(new_names));
    }
    const bool text = c.type == data::ColumnType::string;
    if (text != (n->type == data::ColumnType::string)) {
      throw DataError("column '" + c.name + "' is " + data::to_string(c.type) +
                      " but the new rows hold " + data::to_string(n->type) +
                      " values; a column cannot mix numbers and strings");
    }
    a.columns.push_back({c.name, c.type == n->type ? c.type : data::ColumnType::float64});
  }
  a.attributes = info.attributes;
  a.attributes.erase("checksum");
  a.attributes.erase(kFormatAttribute);
  const auto was = info.attributes.find("source");
  a.attributes["source"] = (was == info.attributes.end() ? "" : data::attribute_text(was->second)) +
                           "; " + data::attribute_text(provenance(o, o.set).at("source"));
  a.rows = info.rows;
  return a;
}

// The chunk's columns in the set's order and types.
data::MeasurementTable as_set(const data::MeasurementTable& chunk,
                              const std::vector<ColumnInfo>& columns) {
  data::MeasurementTable out;
  for (const auto& c : columns) {
    const data::Column& have = chunk.column(c.name);
    out.add_column(have.type() == c.type ? have : data::Column(c.name, have.to_double()));
  }
  return out;
}

// The store's other sets copied into w; with --append, what the set holds already.
std::optional<Appended> keep_others(const ImportOptions& o, const StoreReader& old, StoreWriter& w,
                                    const std::vector<ColumnInfo>& columns, ImportSummary& s) {
  std::optional<Appended> earlier;
  std::vector<data::MeasurementTable> kept;
  std::vector<std::string> kept_names;
  copy_others(old, {o.set}, w, kept, kept_names);
  if (old.has_set(o.set)) {
    data::MeasurementTable none;
    if (o.append) {
      earlier = appended_to(o, old, columns);
      s.appended = true;
    } else {
      merge_existing(o, old, o.set, none, s);  // refused, or replaced
    }
  }
  NamedTables others;
  for (std::size_t k = 0; k < kept.size(); ++k) others.emplace_back(kept_names[k], &kept[k]);
  if (!others.empty()) w.write_sets({others.begin(), others.end()});
  return earlier;
}

// The file's valid rows from row `offset` of the set on, a chunk at a time, with a line every
// 5 s (10^8 rows take minutes).
void write_file_rows(const ImportOptions& o, CsvChunks& csv, SetWriter& set,
                     const std::vector<ColumnInfo>& columns, std::size_t rows, std::size_t offset,
                     std::size_t total) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [&t0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double next_line = 5.0;
  for (CsvTable chunk = csv.next(rows); chunk.table.rows() > 0; chunk = csv.next(rows)) {
    if (!o.throughput.empty()) add_time_from_throughput(chunk, o);
    std::size_t bad = 0;
    const std::vector<bool> keep = valid_targets(chunk.table.column(o.target).to_double(), bad);
    if (bad > 0) chunk.table.filter_rows(keep);
    set.write(offset, as_set(chunk.table, columns));
    offset += chunk.table.rows();
    if (seconds() >= next_line) {
      next_line = seconds() + 5.0;
      spdlog::info("import: {} of {} rows written ({:.0f}%), {:.1f} M rows/s", offset, total,
                   100.0 * static_cast<double>(offset) / static_cast<double>(total),
                   static_cast<double>(offset) / seconds() / 1e6);
    }
  }
  if (offset != total) {  // its rows' values changed since the first pass
    throw DataError("'" + o.csv + "' changed while it was read: " + std::to_string(total) +
                    " valid rows the first time, " + std::to_string(offset) +
                    " the second; import it again");
  }
}

// The file's rows streamed into the set, a chunk at a time, with the store's other sets kept
// (and with --append, the set's own rows first).
ImportSummary import_in_chunks(const ImportOptions& o, const CsvOptions& copts, std::size_t rows) {
  ImportSummary s;
  const auto t0 = std::chrono::steady_clock::now();
  CsvChunks csv(
      o.csv, copts,
      {o.throughput.empty() ? o.target : o.throughput, o.throughput.empty() ? 0.0 : o.work});
  check_chunked(o, csv);
  spdlog::info("import: '{}': {} rows typed in {:.1f} s; writing them {} rows at a time", o.csv,
               csv.rows(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), rows);
  s.rows_read = csv.rows();
  s.rows_dropped = csv.watched().bad;
  s.rows_in_set = s.rows_read - s.rows_dropped;
  s.notes = empty_cell_notes(o, csv.empty());
  std::vector<ColumnInfo> columns;
  for (const auto& name : csv.header()) columns.push_back({name, *csv.type(name)});
  if (!o.throughput.empty()) columns.push_back({o.target, data::ColumnType::float64});
  write_store(o, s, [&](StoreWriter& w, const StoreReader* old) {
    std::optional<Appended> earlier;
    if (old) earlier = keep_others(o, *old, w, columns, s);
    if (earlier) {
      columns = earlier->columns;
      s.rows_in_set += earlier->rows;
    }
    {  // the set's datasets closed before the store is sealed
      SetWriter set = w.create_set(o.set, columns, s.rows_in_set,
                                   earlier ? earlier->attributes : provenance(o, o.set));
      std::vector<std::string> names;
      for (const auto& c : columns) names.push_back(c.name);
      const std::size_t before = earlier ? earlier->rows : 0;
      for (std::size_t begin = 0; begin < before; begin += rows)
        set.write(begin, as_set(old->read(o.set, names, {begin, begin + rows}), columns));
      write_file_rows(o, csv, set, columns, rows, before, s.rows_in_set);
      set.finish();
    }
  });
  return s;
}

}  // namespace

ImportSummary import_csv(const ImportOptions& o) {
  o.validate();
  ImportSummary s;
  CsvOptions copts;
  copts.categorical = o.categorical;
  copts.delimiter = o.delimiter;
  if (const std::size_t rows = chunk_rows(o); rows > 0) return import_in_chunks(o, copts, rows);
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
