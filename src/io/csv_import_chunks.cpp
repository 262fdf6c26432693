// `perfit import` of a large CSV file in chunks (CsvChunks: memory for one chunk of rows and the
// columns' types), into one set or with --set-by into one set per value, each appended to,
// replaced or refused where the store has it as a read at once would.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "import_common.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/test_hooks.hpp"
#include "perfit/io/csv_chunks.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io::detail {

namespace {

// A CSV file at least this large is imported in chunks. A 55 MB log of 1.5*10^6 rows: at once
// 226 MB and 3.2 s, in chunks of 2^16 rows 57 MB and 2.4 s (of 2^20 rows 200 MB: a text
// column's strings). PERFIT_TEST_HOOKS import_chunk_rows=N forces it at any size.
constexpr std::uintmax_t kChunkedImportBytes = std::uintmax_t{64} << 20;
constexpr std::size_t kDefaultChunkRows = std::size_t{1} << 16;

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
  // Last, as a read at once finds it missing only when it splits the valid rows.
  if (!o.set_by.empty() && !csv.type(o.set_by)) throw_no_set_by(o, csv.header());
}

// The next chunk with its target computed (--throughput) and its invalid rows dropped, as a read
// at once would keep them (line_of_row too).
CsvTable next_valid(const ImportOptions& o, CsvChunks& csv, std::size_t rows) {
  CsvTable chunk = csv.next(rows);
  if (chunk.table.rows() == 0) return chunk;
  if (!o.throughput.empty()) add_time_from_throughput(chunk, o);
  std::size_t bad = 0;
  const std::vector<bool> keep = valid_targets(chunk.table.column(o.target).to_double(), bad);
  if (bad > 0) {
    chunk.table.filter_rows(keep);
    std::size_t k = 0;
    for (std::size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) chunk.line_of_row[k++] = chunk.line_of_row[i];
    }
    chunk.line_of_row.resize(k);
  }
  return chunk;
}

// One set the import writes: its path, the file's rows for it, and with --append what the set
// holds already (its columns keep the set's order, each of the type a read at once would give
// it: numbers of both kinds float64, text only with text).
struct Part {
  std::string path;
  std::size_t rows = 0, first_line = 0;
  std::vector<ColumnInfo> columns;
  data::Attributes attributes;
  std::size_t earlier = 0;  // rows the set held (--append)
  std::size_t written = 0;
};

// --append: the columns and attributes of the set as it will be.
void append_to(const ImportOptions& o, const StoreReader& old, Part& p) {
  const SetInfo info = old.info(p.path);
  const std::string target = info.attributes.count("target")
                                 ? data::attribute_text(info.attributes.at("target"))
                                 : std::string();
  if (target != o.target) {
    throw DataError("'" + o.store + "' set '" + p.path + "' has target '" + target +
                    "', the import says --target " + o.target);
  }
  std::vector<std::string> old_names, new_names;
  for (const auto& c : info.columns) old_names.push_back(c.name);
  for (const auto& c : p.columns) new_names.push_back(c.name);
  for (const auto& n : new_names) {
    if (std::find(old_names.begin(), old_names.end(), n) == old_names.end()) {
      throw DataError(
          "new rows have column '" + n +
          "' which the existing set lacks; existing columns: " + column_list(old_names));
    }
  }
  std::vector<ColumnInfo> columns;
  for (const auto& c : info.columns) {
    const auto n = std::find_if(p.columns.begin(), p.columns.end(),
                                [&](const ColumnInfo& f) { return f.name == c.name; });
    if (n == p.columns.end()) {
      throw DataError("new rows lack column '" + c.name +
                      "' of the existing set; new columns: " + column_list(new_names));
    }
    const bool text = c.type == data::ColumnType::string;
    if (text != (n->type == data::ColumnType::string)) {
      throw DataError("column '" + c.name + "' is " + data::to_string(c.type) +
                      " but the new rows hold " + data::to_string(n->type) +
                      " values; a column cannot mix numbers and strings");
    }
    columns.push_back({c.name, c.type == n->type ? c.type : data::ColumnType::float64});
  }
  p.columns = std::move(columns);
  const auto was = info.attributes.find("source");
  p.attributes = info.attributes;
  p.attributes.erase("checksum");
  p.attributes.erase(kFormatAttribute);
  p.attributes["source"] = (was == info.attributes.end() ? "" : data::attribute_text(was->second)) +
                           "; " + data::attribute_text(provenance(o, p.path).at("source"));
  p.earlier = info.rows;
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

// --set-by: each value's valid rows counted in a pass of their own (the sets are created at
// their size), then the file read again from its start.
std::map<std::string, Part> count_values(const ImportOptions& o, CsvChunks& csv, std::size_t rows) {
  std::map<std::string, Part> parts;  // by value: sets in sorted order, as a read at once
  for (CsvTable chunk = next_valid(o, csv, rows); chunk.table.rows() > 0;
       chunk = next_valid(o, csv, rows)) {
    const std::vector<std::string> values = set_by_values(chunk.table.column(o.set_by));
    for (std::size_t i = 0; i < values.size(); ++i) {
      Part& p = parts[values[i]];
      if (p.rows++ == 0) p.first_line = chunk.line_of_row[i];
    }
  }
  csv.rewind();
  for (auto& [value, p] : parts) p.path = set_by_path(o, value, p.first_line);
  return parts;
}

// The store's other sets copied into w; each part appended to, replaced or refused.
void keep_others(const ImportOptions& o, const StoreReader& old, StoreWriter& w,
                 std::map<std::string, Part>& parts, ImportSummary& s) {
  std::set<std::string> ours;
  for (const auto& [value, p] : parts) ours.insert(p.path);
  std::vector<data::MeasurementTable> kept;
  std::vector<std::string> kept_names;
  copy_others(old, ours, w, kept, kept_names);
  for (auto& [value, p] : parts) {
    if (!old.has_set(p.path)) continue;
    data::MeasurementTable none;
    if (o.append) {
      append_to(o, old, p);
      s.appended = true;
    } else {
      merge_existing(o, old, p.path, none, s);  // refused, or replaced
    }
  }
  NamedTables others;
  for (std::size_t k = 0; k < kept.size(); ++k) others.emplace_back(kept_names[k], &kept[k]);
  if (!others.empty()) w.write_sets({others.begin(), others.end()});
}

// The file's valid rows after each set's earlier ones, a chunk at a time, with a line every
// 5 s (10^8 rows take minutes).
void write_file_rows(const ImportOptions& o, CsvChunks& csv, std::size_t rows,
                     std::map<std::string, Part>& parts, std::vector<SetWriter>& sets,
                     std::size_t total) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [&t0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double next_line = 5.0;
  std::size_t done = 0;
  for (CsvTable chunk = next_valid(o, csv, rows); chunk.table.rows() > 0;
       chunk = next_valid(o, csv, rows)) {
    std::map<std::string, std::vector<std::size_t>> rows_of;
    if (o.set_by.empty()) {
      std::vector<std::size_t>& all = rows_of[""];
      for (std::size_t i = 0; i < chunk.table.rows(); ++i) all.push_back(i);
    } else {
      const std::vector<std::string> values = set_by_values(chunk.table.column(o.set_by));
      for (std::size_t i = 0; i < values.size(); ++i) rows_of[values[i]].push_back(i);
    }
    for (const auto& [value, picked] : rows_of) {
      const auto at = parts.find(value);
      if (at == parts.end() || at->second.written + picked.size() > at->second.rows) {
        throw DataError("'" + o.csv + "' changed while it was read: line " +
                        std::to_string(chunk.line_of_row[picked.front()]) +
                        " holds more rows of its set than the first time; import it again");
      }
      Part& p = at->second;
      const auto k = static_cast<std::size_t>(std::distance(parts.begin(), at));
      const bool whole = picked.size() == chunk.table.rows();
      sets[k].write(p.earlier + p.written,
                    as_set(whole ? chunk.table : chunk.table.take_rows(picked), p.columns));
      p.written += picked.size();
    }
    done += chunk.table.rows();
    if (seconds() >= next_line) {
      next_line = seconds() + 5.0;
      spdlog::info("import: {} of {} rows written ({:.0f}%), {:.1f} M rows/s", done, total,
                   100.0 * static_cast<double>(done) / static_cast<double>(total),
                   static_cast<double>(done) / seconds() / 1e6);
    }
  }
  if (done != total) {  // its rows' values changed since the first pass
    throw DataError("'" + o.csv + "' changed while it was read: " + std::to_string(total) +
                    " valid rows the first time, " + std::to_string(done) +
                    " the second; import it again");
  }
}

}  // namespace

std::size_t chunk_rows(const ImportOptions& o) {
  const double hook = test_hook(kImportChunkRows);
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(o.csv, ec);
  if (hook <= 0 && (ec || bytes < kChunkedImportBytes)) return 0;
  return hook > 0 ? static_cast<std::size_t>(hook) : kDefaultChunkRows;
}

std::optional<ImportSummary> import_in_chunks(const ImportOptions& o, const CsvOptions& copts,
                                              std::size_t rows) {
  ImportSummary s;
  const auto t0 = std::chrono::steady_clock::now();
  CsvChunks csv(
      o.csv, copts,
      {o.throughput.empty() ? o.target : o.throughput, o.throughput.empty() ? 0.0 : o.work});
  check_chunked(o, csv);
  std::vector<ColumnInfo> columns;
  for (const auto& name : csv.header()) columns.push_back({name, *csv.type(name)});
  if (!o.throughput.empty()) columns.push_back({o.target, data::ColumnType::float64});
  s.rows_read = csv.rows();
  s.rows_dropped = csv.watched().bad;
  s.notes = empty_cell_notes(o, csv.empty());
  std::map<std::string, Part> parts;
  if (o.set_by.empty()) {
    Part& p = parts[""];
    p.path = o.set;
    p.rows = s.rows_read - s.rows_dropped;
  } else {
    parts = count_values(o, csv, rows);
    // As many sets as a pack holds would be packed by a read at once: so are they, that way.
    if (parts.size() >= kPackMinSets) return std::nullopt;
  }
  spdlog::info("import: '{}': {} rows typed in {:.1f} s; writing them {} rows at a time", o.csv,
               csv.rows(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), rows);
  for (auto& [value, p] : parts) {
    p.columns = columns;
    p.attributes = provenance(o, p.path);
  }
  write_store(o, s, [&](StoreWriter& w, const StoreReader* old) {
    if (old) keep_others(o, *old, w, parts, s);
    std::vector<SetWriter> sets;  // closed before the store is sealed
    sets.reserve(parts.size());
    for (auto& [value, p] : parts) {
      sets.push_back(w.create_set(p.path, p.columns, p.earlier + p.rows, p.attributes));
      std::vector<std::string> names;
      for (const auto& c : p.columns) names.push_back(c.name);
      for (std::size_t begin = 0; begin < p.earlier; begin += rows)
        sets.back().write(begin,
                          as_set(old->read(p.path, names, {begin, begin + rows}), p.columns));
    }
    write_file_rows(o, csv, rows, parts, sets, s.rows_read - s.rows_dropped);
    for (auto& set : sets) set.finish();
  });
  for (const auto& [value, p] : parts) {
    s.rows_in_set += p.earlier + p.rows;
    if (o.set_by.empty()) continue;
    s.sets.push_back(p.path);
    s.rows_in_sets.push_back(p.earlier + p.rows);
  }
  return s;
}

}  // namespace perfit::io::detail
