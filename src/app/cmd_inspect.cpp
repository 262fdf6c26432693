#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/data/column_summary.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::app {

namespace {

struct InspectArgs {
  std::string store;
  std::vector<std::string> sets;
  bool json = false;
};

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

int run_inspect(const InspectArgs& a) {
  io::StoreReader store(a.store);
  const std::vector<std::string> sets = a.sets.empty() ? store.sets() : a.sets;
  nlohmann::ordered_json out = {{"file", a.store}, {"sets", nlohmann::ordered_json::array()}};
  if (!a.json) std::printf("%s: %zu set(s)\n", a.store.c_str(), sets.size());
  for (const auto& set : sets) {
    const io::SetInfo info = store.info(set);
    std::vector<data::ColumnSummary> summaries;
    // One column at a time: inspecting a 1e7-row set needs memory for one column only.
    for (const auto& c : info.columns) {
      const data::MeasurementTable t = store.read(set, {c.name});
      summaries.push_back(data::summarize(t.columns().front()));
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
  return 0;
}

const OptionTable<InspectArgs>& inspect_options() {
  using A = InspectArgs;
  static const OptionTable<A> t = {
      required(positional(text_option<A>("store", &A::store, "an HDF5 store", "HDF5 store"))),
      list_option<A>("set", &A::sets, "set paths", "only this set (repeatable)"),
      json_option<A>(&A::json, "one JSON object {\"sets\":[...]} instead of text"),
  };
  return t;
}

}  // namespace

void add_inspect_command(CLI::App& app, Action& action) {
  add_command(app, action,
      "inspect", "List the sets of an HDF5 store: rows, columns (type, range or distinct "
                 "values) and attributes.", std::make_shared<InspectArgs>(), inspect_options(), run_inspect);
}

}  // namespace perfit::app
