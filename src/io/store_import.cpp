#include "perfit/io/store_import.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "import_common.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/test_hooks.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/atomic_output.hpp"
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

namespace detail {

std::string column_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + visible_name(n);
  return out;
}

[[noreturn]] void throw_no_throughput(const ImportOptions& o, const std::string& columns) {
  throw DataError("'" + o.csv + "' has no throughput column '" + o.throughput +
                  "'; header columns: " + columns);
}

[[noreturn]] void throw_text_throughput(const ImportOptions& o, const std::string& first) {
  throw DataError("'" + o.csv + "' throughput column '" + o.throughput +
                  "' holds text (first value '" + first + "'), expected samples per second");
}

[[noreturn]] void throw_target_exists(const ImportOptions& o) {
  throw DataError("'" + o.csv + "' already has a column '" + o.target +
                  "'; with --throughput, "
                  "--target names the time column to create: pass another name");
}

[[noreturn]] void throw_no_target(const ImportOptions& o, const std::string& columns) {
  throw DataError("'" + o.csv + "' has no target column '" + o.target +
                  "'; header columns: " + columns + ". Pass --target with one of them");
}

[[noreturn]] void throw_text_target(const ImportOptions& o, const std::string& first) {
  throw DataError("'" + o.csv + "' target column '" + o.target + "' holds text (first value '" +
                  first + "'), expected measured times in " + o.unit);
}

[[noreturn]] void throw_invalid_target(const ImportOptions& o, const std::string& where,
                                       const std::string& found, std::size_t bad) {
  if (!o.throughput.empty()) {
    throw DataError("'" + o.csv + "' " + where + ", throughput column '" + o.throughput +
                    "': found " + found + ", expected a finite throughput > 0 (" +
                    std::to_string(bad) +
                    " such rows in all). Fix them, or pass --drop-invalid to "
                    "drop and count them");
  }
  throw DataError("'" + o.csv + "' " + where + ", target column '" + o.target + "': found " +
                  found + ", expected a finite time > 0 (" + std::to_string(bad) +
                  " such rows in all). Fix them, or pass --drop-invalid to drop and count them");
}

[[noreturn]] void throw_all_invalid(const ImportOptions& o, std::size_t rows) {
  throw DataError("'" + o.csv + "': all " + std::to_string(rows) +
                  " rows have an invalid "
                  "target '" +
                  o.target + "'; nothing to import");
}

std::vector<bool> valid_targets(const std::vector<double>& v, std::size_t& bad) {
  std::vector<bool> keep(v.size(), true);
  bad = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(std::isfinite(v[i]) && v[i] > 0.0)) {
      ++bad;
      keep[i] = false;
    }
  }
  return keep;
}

std::size_t check_target(data::MeasurementTable& table, const ImportOptions& o,
                         const std::function<std::string(std::size_t)>& where) {
  const data::Column* t = table.find(o.target);
  if (!t) throw_no_target(o, column_list(table.column_names()));
  if (!t->is_numeric()) throw_text_target(o, t->str().front());
  const std::vector<double> v = t->to_double();
  std::size_t bad = 0;
  const std::vector<bool> keep = valid_targets(v, bad);
  if (bad == 0) return 0;
  if (!o.drop_invalid) {
    const std::size_t first_bad =
        static_cast<std::size_t>(std::find(keep.begin(), keep.end(), false) - keep.begin());
    const std::string found = !o.throughput.empty()
                                  ? table.find(o.throughput)->value_text(first_bad)
                              : std::isnan(v[first_bad]) ? "NaN or empty"
                                                         : t->value_text(first_bad);
    throw_invalid_target(o, where(first_bad), found, bad);
  }
  table.filter_rows(keep);
  if (table.rows() == 0) throw_all_invalid(o, v.size());
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

void write_store(const ImportOptions& o, ImportSummary& s,
                 const std::function<void(StoreWriter& w, const StoreReader* old)>& body) {
  std::error_code ec;
  s.created_store = !std::filesystem::exists(o.store, ec);
  AtomicOutput out(o.store);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    std::optional<StoreReader> old;
    if (!s.created_store) old.emplace(o.store);
    body(w, old ? &*old : nullptr);
    w.close();
  });
}

void write_sets(const ImportOptions& o, const NamedTables& sets, ImportSummary& s) {
  write_store(o, s, [&](StoreWriter& w, const StoreReader* old) {
    std::vector<data::MeasurementTable> kept;
    std::vector<std::string> kept_names;
    if (old) {
      std::set<std::string> ours;
      for (const auto& set : sets) ours.insert(set.first);
      copy_others(*old, ours, w, kept, kept_names);
      for (const auto& [path, table] : sets) {
        if (old->has_set(path)) merge_existing(o, *old, path, *table, s);
      }
    }
    std::vector<std::pair<std::string, const data::MeasurementTable*>> all;
    for (const auto& [path, table] : sets) all.emplace_back(path, table);
    for (std::size_t k = 0; k < kept.size(); ++k) all.emplace_back(kept_names[k], &kept[k]);
    w.write_sets(all);
  });
}

}  // namespace detail

using namespace detail;

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

// An Extra-P file's sets are written as they are read, a block at a time, each block its own
// packs: memory holds one block whatever the number of call paths (10^6 call paths read whole
// took 3.4 GB and 26 s, in blocks 0.4 GB and 14 s). The first blocks are smaller (4,096 sets,
// doubling up to 65,536), so that a file of 10^4 call paths is written while it is read too.
constexpr std::size_t kBlockRows = std::size_t{1} << 21;
std::size_t block_sets(std::size_t written, double hook) {
  if (hook > 0) return static_cast<std::size_t>(hook);
  return std::size_t{1} << std::min<std::size_t>(12 + written, 16);
}

// The store's path of one region x metric, and its attributes.
std::string extrap_set(const ImportOptions& o, ExtrapSet& x) {
  std::string path = o.set + "/" + set_segment(x.region, "all");
  if (!x.metric.empty()) path += "/" + set_segment(x.metric, "metric");
  validate_set_path(path);
  data::Attributes& a = x.table.attributes();
  a["framework"] = o.set.substr(1);
  a["model"] = set_segment(x.region, "all");
  if (!x.metric.empty()) a["system"] = set_segment(x.metric, "metric");
  a["extrap_region"] = x.region;
  a["extrap_metric"] = x.metric;
  a["source"] = o.source.empty() ? std::filesystem::path(o.csv).filename().string() : o.source;
  a["target"] = std::string(kExtrapValueColumn);
  a["unit"] = o.unit;
  return path;
}

}  // namespace

ImportSummary import_extrap(const ImportOptions& o) {
  if (o.set.size() < 2 || o.set[0] != '/' || o.set.find('/', 1) != std::string::npos) {
    throw ConfigError("--set '" + o.set +
                      "': with --format extrap give one level, e.g. /myapp; the sets "
                      "become /myapp/<region>/<metric>");
  }
  if (o.append && o.replace) throw ConfigError("--append and --force exclude each other");
  ImportSummary s;
  write_store(o, s, [&](StoreWriter& w, const StoreReader* old) {
    std::set<std::string> seen;
    using Block = std::vector<std::pair<std::string, data::MeasurementTable>>;
    Block block;
    std::size_t block_rows = 0, blocks = 0;
    const double hook = test_hook(kImportBlockSets);
    // Each block written on a thread of its own while the next one is read: packing and
    // compressing were two thirds of an import of 10^6 call paths, reading the text the rest.
    // One block in flight: the next waits for it (and rethrows its error); an error while
    // reading waits for it too (the future's destructor), before the store is removed.
    std::future<void> writing;
    const auto write_block = [&] {
      if (writing.valid()) writing.get();
      writing = std::async(std::launch::async, [&w, taken = std::move(block)]() mutable {
        NamedTables sets;
        for (auto& [path, table] : taken) sets.emplace_back(path, &table);
        w.write_sets({sets.begin(), sets.end()});
      });
      block = Block();
      block_rows = 0;
      ++blocks;
    };
    for_each_extrap_set(o.csv, [&](ExtrapSet&& x) {
      const std::string path = extrap_set(o, x);
      if (!seen.insert(path).second) {
        throw DataError("'" + o.csv + "': region '" + x.region + "' metric '" + x.metric +
                        "' gives set '" + path + "' twice");
      }
      s.rows_read += x.table.rows();
      s.rows_dropped +=
          check_values(x.table, o, "region '" + x.region + "' metric '" + x.metric + "'");
      if (old && old->has_set(path)) merge_existing(o, *old, path, x.table, s);
      s.rows_in_set += x.table.rows();
      s.sets.push_back(path);
      block_rows += x.table.rows();
      block.emplace_back(path, std::move(x.table));
      if (block.size() >= block_sets(blocks, hook) || block_rows >= kBlockRows) write_block();
    });
    write_block();
    writing.get();
    if (old) {
      std::vector<data::MeasurementTable> kept;
      std::vector<std::string> kept_names;
      copy_others(*old, seen, w, kept, kept_names);
      for (std::size_t k = 0; k < kept.size(); ++k)
        block.emplace_back(kept_names[k], std::move(kept[k]));
      write_block();
      writing.get();
    }
  });
  return s;
}

}  // namespace perfit::io
