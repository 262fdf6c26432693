#include "result_record.hpp"

#include <cmath>
#include <limits>

#include "perfit/core/error.hpp"

namespace perfit::app {

namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double number(const json& v) { return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>(); }

json value_json(const data::AttributeValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return {{"f", number(*d)}};
  if (const auto* i = std::get_if<std::int64_t>(&v)) return {{"i", *i}};
  return {{"s", std::get<std::string>(v)}};
}

data::AttributeValue value_from(const json& j) {
  if (j.contains("f")) return number(j["f"]);
  if (j.contains("i")) return j["i"].get<std::int64_t>();
  return j.at("s").get<std::string>();
}

// A table as [[name, "f"|"i"|"s", [values]], ...].
json table_json(const data::MeasurementTable& t) {
  json cols = json::array();
  for (const auto& c : t.columns()) {
    json values = json::array();
    switch (c.type()) {
      case data::ColumnType::float64:
        for (double v : c.f64()) values.push_back(number(v));
        cols.push_back({c.name(), "f", values});
        break;
      case data::ColumnType::int64: cols.push_back({c.name(), "i", c.i64()}); break;
      case data::ColumnType::string: cols.push_back({c.name(), "s", c.str()}); break;
    }
  }
  return cols;
}

data::MeasurementTable table_from(const json& j) {
  data::MeasurementTable t;
  for (const auto& c : j) {
    const std::string name = c.at(0).get<std::string>(), type = c.at(1).get<std::string>();
    if (type == "f") {
      std::vector<double> v;
      for (const auto& x : c.at(2)) v.push_back(number(x));
      t.add_column(data::Column(name, v));
    } else if (type == "i") {
      t.add_column(data::Column(name, c.at(2).get<std::vector<std::int64_t>>()));
    } else {
      t.add_column(data::Column(name, c.at(2).get<std::vector<std::string>>()));
    }
  }
  return t;
}

}  // namespace

json result_record(const io::ResultFile& r) {
  json fields = json::object();
  for (const auto& [key, value] : io::result_attributes(r)) fields[key] = value_json(value);
  json history = json::array();
  for (double v : r.history) history.push_back(number(v));
  const auto& m = r.metrics;
  return {{"fields", fields},
          {"params", table_json(io::params_table(r.params, true))},
          {"ranges", table_json(io::ranges_table(r.ranges))},
          {"history", history},
          {"metrics", {number(m.mape), number(m.rmse), number(m.r2), number(m.gmae), number(m.max_rel_err)}}};
}

io::ResultFile result_from_record(const json& j) {
  try {
    data::Attributes a;
    for (const auto& [key, value] : j.at("fields").items()) a[key] = value_from(value);
    io::ResultFile r = io::result_from_attributes(a, "a winner's record");
    r.params = io::params_from_table(table_from(j.at("params")));
    r.ranges = io::ranges_from_table(table_from(j.at("ranges")));
    for (const auto& v : j.at("history")) r.history.push_back(number(v));
    const json& m = j.at("metrics");
    r.metrics = {number(m.at(0)), number(m.at(1)), number(m.at(2)), number(m.at(3)), number(m.at(4))};
    return r;
  } catch (const json::exception& e) {
    throw DataError(std::string("a winner's record is malformed (") + e.what() + ")");
  }
}

}  // namespace perfit::app
