#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/data/column_summary.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::app {

namespace {

struct InspectArgs {
  std::string store;
  std::vector<std::string> sets;
  bool details = false;
  bool json = false;
};

// More sets than this and no --set: a summary instead of every set in full.
constexpr std::size_t kDetailedSets = 20;

nlohmann::ordered_json attribute_json(const data::AttributeValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return std::get<double>(v);
}

nlohmann::ordered_json column_json(const data::ColumnSummary& s) {
  nlohmann::ordered_json c = {{"name", s.name}, {"type", data::to_string(s.type)}};
  if (s.type != data::ColumnType::string) {
    const bool any = s.non_finite < s.rows;
    c["min"] = any ? nlohmann::ordered_json(s.min) : nlohmann::ordered_json(nullptr);
    c["max"] = any ? nlohmann::ordered_json(s.max) : nlohmann::ordered_json(nullptr);
    c["non_finite"] = s.non_finite;
  }
  c["n_distinct"] = s.n_distinct;
  c["distinct_truncated"] = s.distinct_truncated;
  if (!s.distinct_truncated) c["distinct"] = s.distinct;
  return c;
}

void print_text(const io::SetInfo& info, const std::vector<data::ColumnSummary>& cols) {
  std::printf("%s  rows=%zu  target=%s\n", info.path.c_str(), info.rows,
              info.attributes.count("target")
                  ? data::attribute_text(info.attributes.at("target")).c_str()
                  : "(unset)");
  std::printf("  %-24s %-8s %14s %14s  %s\n", "column", "type", "min", "max", "values");
  for (const auto& s : cols) {
    std::string values;
    if (s.distinct_truncated) {
      values = "more than " + std::to_string(data::ColumnSummary::kMaxDistinct) + " distinct";
    } else {
      values = std::to_string(s.n_distinct) + " distinct:";
      for (const auto& d : s.distinct) values += " " + d;
    }
    if (s.non_finite) values += "  (" + std::to_string(s.non_finite) + " NaN/inf)";
    if (s.type == data::ColumnType::string) {
      std::printf("  %-24s %-8s %14s %14s  %s\n", s.name.c_str(), "string", "-", "-",
                  values.c_str());
    } else {
      std::printf("  %-24s %-8s %14.6g %14.6g  %s\n", s.name.c_str(), data::to_string(s.type),
                  s.min, s.max, values.c_str());
    }
  }
  std::printf("  attributes:");
  for (const auto& [k, v] : info.attributes) {
    std::printf(" %s=%s", k.c_str(), data::attribute_text(v).c_str());
  }
  std::printf("\n");
}

// Every set in full: rows, each column's summary (one column read at a time, 2^20 rows at a
// time: a set larger than memory, or a column of 10^9 zeros that takes kilobytes on disk, is
// summarised in memory of one chunk), attributes.
void print_details(const io::StoreReader& store, const std::vector<std::string>& sets,
                   const InspectArgs& a) {
  nlohmann::ordered_json out = {{"file", a.store}, {"sets", nlohmann::ordered_json::array()}};
  if (!a.json) std::printf("%s: %zu set(s)\n", a.store.c_str(), sets.size());
  for (const auto& set : sets) {
    const io::SetInfo info = store.info(set);
    std::vector<data::ColumnSummary> summaries;
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    for (const auto& c : info.columns) {
      data::ColumnSummarizer sum(c.name, c.type);
      for (std::size_t b = 0; b < info.rows; b += kChunk)
        sum.add(store.read(set, {c.name}, {b, b + kChunk}).columns().front());
      summaries.push_back(sum.finish());
    }
    if (a.json) {
      nlohmann::ordered_json s = {{"path", info.path}, {"rows", info.rows}};
      s["columns"] = nlohmann::ordered_json::array();
      for (const auto& c : summaries) s["columns"].push_back(column_json(c));
      s["attributes"] = nlohmann::ordered_json::object();
      for (const auto& [k, v] : info.attributes) s["attributes"][k] = attribute_json(v);
      out["sets"].push_back(s);
    } else {
      print_text(info, summaries);
    }
  }
  if (a.json) std::cout << out.dump(2) << "\n";
}

// Many sets (an Extra-P experiment: one per call path x metric): how many, their rows, the
// sets per last path segment (the metric of an Extra-P import), and a few names; or with a
// glob, each matching set's path and rows.
void print_summary(const io::StoreReader& store, const std::vector<std::string>& sets, bool listed,
                   const InspectArgs& a) {
  std::size_t rows = 0;
  std::map<std::string, std::size_t> by_leaf;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& set : sets) {
    const std::size_t n = store.rows(set);
    rows += n;
    ++by_leaf[set.substr(set.rfind('/') + 1)];
    if (listed && a.json) list.push_back({{"path", set}, {"rows", n}});
    if (listed && !a.json) std::printf("%s  rows=%zu\n", set.c_str(), n);
  }
  if (a.json) {
    nlohmann::ordered_json out = {{"file", a.store},
                                  {"set_count", sets.size()},
                                  {"rows", rows},
                                  {"by_last_segment", by_leaf}};
    if (listed) out["sets"] = list;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("%s: %zu set(s)%s, %zu rows; sets per last path segment:", a.store.c_str(),
              sets.size(), listed ? " matched" : "", rows);
  // The segments with the most sets (an Extra-P import has a few metrics; --set-by over 10^5
  // call paths as many segments as sets: one line, not a megabyte).
  std::vector<std::pair<std::string, std::size_t>> leaves(by_leaf.begin(), by_leaf.end());
  std::stable_sort(leaves.begin(), leaves.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < std::min(kShown, leaves.size()); ++i)
    std::printf(" %s %zu", leaves[i].first.c_str(), leaves[i].second);
  if (leaves.size() > kShown)
    std::printf(" and %zu more segments (--json lists every one)", leaves.size() - kShown);
  std::printf("\n");
  if (listed) return;
  std::printf("first sets:");
  for (std::size_t i = 0; i < std::min<std::size_t>(5, sets.size()); ++i)
    std::printf(" %s", sets[i].c_str());
  std::printf(
      " ...\n--set GLOB lists the matching sets, --set PATH shows one in full, --details shows "
      "every set in full\n");
}

// --set: paths as given; a glob (* ? [): the matching sets in store order, or an error.
std::vector<std::string> chosen(const io::StoreReader& store, const InspectArgs& a, bool& globbed) {
  globbed = false;
  if (a.sets.empty()) return store.sets();
  std::vector<std::string> out, all;
  for (const auto& want : a.sets) {
    if (!io::is_set_glob(want)) {
      out.push_back(want);
      continue;
    }
    globbed = true;
    if (all.empty()) all = store.sets();
    const std::size_t before = out.size();
    for (const auto& set : all) {
      if (io::set_matches(want, set)) out.push_back(set);
    }
    if (out.size() == before) {
      throw DataError("--set '" + want + "': matches none of the " + std::to_string(all.size()) +
                      " set(s) of '" + a.store + "' (e.g. " +
                      (all.empty() ? std::string("none") : all.front()) + ")");
    }
  }
  return out;
}

int run_inspect(const InspectArgs& a) {
  io::StoreReader store(a.store);
  bool globbed = false;
  const std::vector<std::string> sets = chosen(store, a, globbed);
  if (a.details || (!globbed && (!a.sets.empty() || sets.size() <= kDetailedSets))) {
    print_details(store, sets, a);
  } else {
    print_summary(store, sets, globbed, a);
  }
  return 0;
}

const OptionTable<InspectArgs>& inspect_options() {
  using A = InspectArgs;
  static const OptionTable<A> t = {
      required(positional(text_option<A>("store", &A::store, "an HDF5 store", "HDF5 store"))),
      list_option<A>("set", &A::sets, "set paths or globs",
                     "only this set (repeatable); a glob (* ? [...], within one path level) lists "
                     "the matching sets"),
      bool_option<A>("details", &A::details, "every chosen set in full, however many"),
      json_option<A>(&A::json, "one JSON object instead of text"),
  };
  return t;
}

}  // namespace

void add_inspect_command(CLI::App& app, Action& action) {
  add_command(
      app, action, "inspect",
      "List the sets of an HDF5 store: rows, columns (type, range or distinct "
      "values) and attributes. A store of more than 20 sets is summarised (counts, rows, "
      "sets per last path segment); --set GLOB lists the matching sets, --details shows all.",
      std::make_shared<InspectArgs>(), inspect_options(), run_inspect);
}

}  // namespace perfit::app
