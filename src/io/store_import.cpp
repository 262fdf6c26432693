#include "perfit/io/store_import.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/csv_reader.hpp"
#include "perfit/io/extrap_json_reader.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

void ImportOptions::validate() const {
  if (set_by.empty()) {
    validate_set_path(set);
  } else {
    try {
      validate_set_path(set + "/x");
    } catch (const ConfigError&) {
      throw ConfigError("--set '" + set + "' with --set-by " + set_by +
                        ": give the first one or two levels (e.g. "
                        "/study), the sets become " +
                        set + "/<" + set_by + ">");
    }
  }
  if (target.empty()) throw ConfigError("--target must name the measured-time column");
  if (!throughput.empty() && !(std::isfinite(work) && work > 0.0)) {
    throw ConfigError("--throughput " + throughput +
                      " needs --work SAMPLES, the samples one measured "
                      "time stands for (found " +
                      (work == 0.0 ? std::string("none") : std::to_string(work)) +
                      ", expected a number > 0)");
  }
  if (throughput.empty() && work != 0.0) {
    throw ConfigError(
        "--work is the work behind each throughput value; give --throughput COLUMN too");
  }
  if (append && replace) {
    throw ConfigError("--append and --force exclude each other: append adds rows to set '" + set +
                      "', force replaces it");
  }
}

namespace {

std::string column_list(const data::MeasurementTable& t) {
  std::string names;
  for (const auto& n : t.column_names()) names += (names.empty() ? "" : ", ") + visible_name(n);
  return names;
}

// --throughput: the target column `work / throughput` is added to the table (a throughput that
// is not finite and > 0 gives NaN, which check_target refuses or drops like any bad time).
void add_time_from_throughput(CsvTable& csv, const ImportOptions& o) {
  const data::Column* t = csv.table.find(o.throughput);
  if (!t) {
    throw DataError("'" + o.csv + "' has no throughput column '" + o.throughput +
                    "'; header columns: " + column_list(csv.table));
  }
  if (!t->is_numeric()) {
    throw DataError("'" + o.csv + "' throughput column '" + o.throughput +
                    "' holds text (first value '" + t->str().front() +
                    "'), expected samples per second");
  }
  if (csv.table.find(o.target)) {
    throw DataError("'" + o.csv + "' already has a column '" + o.target +
                    "'; with --throughput, "
                    "--target names the time column to create: pass another name");
  }
  std::vector<double> time = t->to_double();
  for (double& v : time) {
    v = std::isfinite(v) && v > 0.0 ? o.work / v : std::numeric_limits<double>::quiet_NaN();
  }
  csv.table.add_column(data::Column(o.target, std::move(time)));
}

// Checks the target column; drops invalid rows when asked. Returns rows dropped. `where` names
// a row in messages ("line 12" of a CSV file, "row 11" of a DataFrame).
std::size_t check_target(data::MeasurementTable& table, const ImportOptions& o,
                         const std::function<std::string(std::size_t)>& where) {
  const data::Column* t = table.find(o.target);
  if (!t) {
    throw DataError("'" + o.csv + "' has no target column '" + o.target + "'; header columns: " +
                    column_list(table) + ". Pass --target with one of them");
  }
  if (!t->is_numeric()) {
    throw DataError("'" + o.csv + "' target column '" + o.target + "' holds text (first value '" +
                    t->str().front() + "'), expected measured times in " + o.unit);
  }
  const std::vector<double> v = t->to_double();
  std::vector<bool> keep(v.size(), true);
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(std::isfinite(v[i]) && v[i] > 0.0)) {
      if (bad++ == 0) first_bad = i;
      keep[i] = false;
    }
  }
  if (bad == 0) return 0;
  if (!o.drop_invalid) {
    const double x = v[first_bad];
    const std::string found = std::isnan(x) ? "NaN or empty" : t->value_text(first_bad);
    const std::string column = o.throughput.empty() ? "target column '" + o.target + "'"
                                                    : "throughput column '" + o.throughput + "'";
    if (!o.throughput.empty()) {
      const data::Column& thr = *table.find(o.throughput);
      throw DataError("'" + o.csv + "' " + where(first_bad) + ", " + column + ": found " +
                      thr.value_text(first_bad) + ", expected a finite throughput > 0 (" +
                      std::to_string(bad) +
                      " such rows in all). Fix them, or pass --drop-invalid to "
                      "drop and count them");
    }
    throw DataError("'" + o.csv + "' " + where(first_bad) + ", " + column + ": found " + found +
                    ", expected a finite time > 0 (" + std::to_string(bad) +
                    " such rows in all). Fix them, or pass --drop-invalid to drop and count them");
  }
  table.filter_rows(keep);
  if (table.rows() == 0) {
    throw DataError("'" + o.csv + "': all " + std::to_string(v.size()) +
                    " rows have an invalid "
                    "target '" +
                    o.target + "'; nothing to import");
  }
  return bad;
}

data::Attributes provenance(const ImportOptions& o, const std::string& set) {
  data::Attributes a;
  std::vector<std::string> parts;
  for (std::size_t b = 1, e; b < set.size(); b = e + 1) {
    e = set.find('/', b);
    if (e == std::string::npos) e = set.size();
    parts.push_back(set.substr(b, e - b));
  }
  a["framework"] = parts.at(0);
  a["model"] = parts.at(1);
  if (parts.size() > 2) a["system"] = parts[2];
  a["source"] = o.source.empty() ? std::filesystem::path(o.csv).filename().string() : o.source;
  a["target"] = o.target;
  a["unit"] = o.unit;
  if (!o.throughput.empty()) {
    a["throughput_column"] = o.throughput;
    a["work"] = o.work;  // target = work / throughput_column
  }
  return a;
}

// A set of that path is already in the store: refused, or appended to, or replaced.
void merge_existing(const ImportOptions& o, const StoreReader& old, const std::string& path,
                    data::MeasurementTable& table, ImportSummary& s) {
  if (!o.append && !o.replace) {
    throw DataError("'" + o.store + "' already has set '" + path +
                    "'. Pass --append to add these rows to it or --force to replace it");
  }
  s.replaced = o.replace;
  if (o.replace) return;
  data::MeasurementTable merged = old.read(path);
  if (merged.target() != table.target()) {
    throw DataError("'" + o.store + "' set '" + path + "' has target '" + merged.target() +
                    "', the import says --target " + table.target());
  }
  merged.append(table);
  merged.attributes()["source"] = merged.attribute_string("source") + "; " +
                                  data::attribute_text(table.attributes().at("source"));
  table = std::move(merged);
  s.appended = true;
}

using NamedTables = std::vector<std::pair<std::string, data::MeasurementTable*>>;

// The old store's sets that this import leaves alone, into w: a pack none of whose sets is
// replaced is copied whole, the others' sets become tables of `kept` (written with the new ones).
void copy_others(const StoreReader& old, const std::set<std::string>& ours, StoreWriter& w,
                 std::vector<data::MeasurementTable>& kept, std::vector<std::string>& kept_names) {
  std::set<std::string> packed;
  for (const auto& pack : old.packs()) {
    const bool touched = std::any_of(pack.sets.begin(), pack.sets.end(),
                                     [&](const std::string& s) { return ours.count(s) > 0; });
    if (!touched) w.copy_pack(old, pack.path);
    for (const auto& set : pack.sets) {
      packed.insert(set);
      if (touched && !ours.count(set)) {
        kept.push_back(old.read(set));
        kept_names.push_back(set);
      }
    }
  }
  for (const auto& set : old.sets()) {
    if (!ours.count(set) && !packed.count(set)) w.copy_set(old, set);
  }
}

// Rewrites the store through a temporary file: its other sets copied, these written (appended
// to or replacing sets of the same path when the options say so).
// --set-by: the rows of each value of the column as set/<value>, values in sorted order.
std::vector<std::pair<std::string, data::MeasurementTable>> split_by_column(
    const ImportOptions& o, const data::MeasurementTable& t,
    const std::vector<std::size_t>& line_of_row) {
  const data::Column* c = t.find(o.set_by);
  if (!c)
    throw DataError("'" + o.csv + "' has no column '" + o.set_by +
                    "' to split into sets (--set-by); its columns: " + column_list(t));
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

void write_sets(const ImportOptions& o, const NamedTables& sets, ImportSummary& s) {
  std::error_code ec;
  s.created_store = !std::filesystem::exists(o.store, ec);
  AtomicOutput out(o.store);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    std::vector<data::MeasurementTable> kept;
    std::vector<std::string> kept_names;
    if (!s.created_store) {
      StoreReader old(o.store);
      std::set<std::string> ours;
      for (const auto& set : sets) ours.insert(set.first);
      copy_others(old, ours, w, kept, kept_names);
      for (const auto& [path, table] : sets) {
        if (old.has_set(path)) merge_existing(o, old, path, *table, s);
      }
    }
    std::vector<std::pair<std::string, const data::MeasurementTable*>> all;
    for (const auto& [path, table] : sets) all.emplace_back(path, table);
    for (std::size_t k = 0; k < kept.size(); ++k) all.emplace_back(kept_names[k], &kept[k]);
    w.write_sets(all);
    w.close();
  });
}

}  // namespace

ImportSummary import_csv(const ImportOptions& o) {
  o.validate();
  ImportSummary s;
  CsvOptions copts;
  copts.categorical = o.categorical;
  copts.delimiter = o.delimiter;
  CsvTable csv = read_csv(o.csv, copts);
  s.rows_read = csv.table.rows();
  if (!o.throughput.empty()) add_time_from_throughput(csv, o);
  s.rows_dropped = check_target(
      csv.table, o, [&csv](std::size_t i) { return "line " + std::to_string(csv.line_of_row[i]); });
  for (const auto& e : csv.empty) {
    if (e.column == o.target) continue;  // check_target has said what became of those rows
    s.notes.push_back("'" + o.csv + "' column '" + e.column + "': " + std::to_string(e.count) +
                      " empty cell(s), the first on line " + std::to_string(e.first_line) +
                      ", kept as missing (NaN); a fit that reads the column refuses "
                      "them unless --drop-invalid drops their rows");
  }
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

std::size_t check_table(const ImportOptions& o, data::MeasurementTable& table) {
  o.validate();
  if (!o.throughput.empty())
    throw ConfigError("throughput applies to CSV imports; compute the time column first");
  return check_target(table, o, [](std::size_t i) { return "row " + std::to_string(i); });
}

ImportSummary import_table(const ImportOptions& o, data::MeasurementTable table) {
  ImportSummary s;
  s.rows_read = table.rows();
  s.rows_dropped = check_table(o, table);
  table.attributes() = provenance(o, o.set);
  write_sets(o, {{o.set, &table}}, s);
  s.rows_in_set = table.rows();
  return s;
}

namespace {

std::string set_segment(const std::string& name, const std::string& fallback) {
  std::string out = name.empty() ? fallback : name;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

// Values that are not > 0 are refused (a time), or dropped with drop_invalid.
std::size_t check_values(data::MeasurementTable& t, const ImportOptions& o,
                         const std::string& set) {
  const auto& v = t.column(kExtrapValueColumn).f64();
  std::vector<bool> keep(v.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    keep[i] = std::isfinite(v[i]) && v[i] > 0.0;
    if (!keep[i] && !o.drop_invalid) {
      throw DataError("'" + o.csv + "' " + set + ": DATA value " + std::to_string(v[i]) +
                      " is not a time > 0; fix it or pass --drop-invalid");
    }
    bad += keep[i] ? 0 : 1;
  }
  t.filter_rows(keep);
  return bad;
}

}  // namespace

ImportSummary import_extrap(const ImportOptions& o) {
  if (o.set.size() < 2 || o.set[0] != '/' || o.set.find('/', 1) != std::string::npos) {
    throw ConfigError("--set '" + o.set +
                      "': with --format extrap give one level, e.g. /myapp; the sets "
                      "become /myapp/<region>/<metric>");
  }
  if (o.append && o.replace) throw ConfigError("--append and --force exclude each other");
  std::vector<ExtrapSet> read = read_extrap_file(o.csv);
  ImportSummary s;
  NamedTables sets;
  std::set<std::string> seen;
  for (auto& x : read) {
    std::string path = o.set + "/" + set_segment(x.region, "all");
    if (!x.metric.empty()) path += "/" + set_segment(x.metric, "metric");
    validate_set_path(path);
    if (!seen.insert(path).second) {
      throw DataError("'" + o.csv + "': region '" + x.region + "' metric '" + x.metric +
                      "' gives set '" + path + "' twice");
    }
    s.rows_read += x.table.rows();
    s.rows_dropped +=
        check_values(x.table, o, "region '" + x.region + "' metric '" + x.metric + "'");
    data::Attributes& a = x.table.attributes();
    a["framework"] = o.set.substr(1);
    a["model"] = set_segment(x.region, "all");
    if (!x.metric.empty()) a["system"] = set_segment(x.metric, "metric");
    a["extrap_region"] = x.region;
    a["extrap_metric"] = x.metric;
    a["source"] = o.source.empty() ? std::filesystem::path(o.csv).filename().string() : o.source;
    a["target"] = std::string(kExtrapValueColumn);
    a["unit"] = o.unit;
    sets.emplace_back(path, &x.table);
    s.sets.push_back(path);
  }
  write_sets(o, sets, s);
  s.rows_in_set = 0;
  for (const auto& [path, t] : sets) s.rows_in_set += t->rows();
  return s;
}

}  // namespace perfit::io
