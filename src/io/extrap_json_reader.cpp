#include "perfit/io/extrap_json_reader.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

using Json = nlohmann::ordered_json;

std::string quoted(const std::string& s) { return Json(s).dump(); }

std::string shown(const Json& j) {
  std::string s = j.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// The sets of one file in order of first appearance, each with a column per parameter.
class Sets {
 public:
  explicit Sets(std::vector<std::string> params) : params_(std::move(params)) {}

  void add(const std::string& callpath, const std::string& metric, const std::vector<double>& point,
           double value) {
    ExtrapSet& s = set(callpath, metric);
    auto& cols = s.table.columns();
    for (std::size_t k = 0; k < point.size(); ++k) cols[k].f64().push_back(point[k]);
    cols[point.size()].f64().push_back(value);
  }

  std::vector<ExtrapSet> take(const std::string& path) {
    if (sets_.empty()) throw DataError("'" + path + "': no measurements; nothing to import");
    return std::move(sets_);
  }

 private:
  ExtrapSet& set(const std::string& callpath, const std::string& metric) {
    const auto key = std::make_pair(callpath, metric);
    const auto it = index_.find(key);
    if (it != index_.end()) return sets_[it->second];
    ExtrapSet s;
    s.region = callpath;
    s.metric = metric;
    for (const auto& p : params_)
      s.table.add_column(data::Column::empty(p, data::ColumnType::float64));
    s.table.add_column(data::Column::empty(kExtrapValueColumn, data::ColumnType::float64));
    index_.emplace(key, sets_.size());
    sets_.push_back(std::move(s));
    return sets_.back();
  }

  std::vector<std::string> params_;
  std::vector<ExtrapSet> sets_;
  std::map<std::pair<std::string, std::string>, std::size_t> index_;
};

class Where {
 public:
  explicit Where(std::string path) : path_(std::move(path)) {}
  [[noreturn]] void fail(const std::string& at, const std::string& what) const {
    throw DataError("'" + path_ + "' " + at + ": " + what);
  }
  const Json& member(const Json& j, const char* key, const std::string& at) const {
    if (!j.is_object()) fail(at, "found " + shown(j) + ", expected an object");
    const auto it = j.find(key);
    if (it == j.end()) fail(at, std::string("no \"") + key + "\"");
    return *it;
  }
  const Json& array(const Json& j, const std::string& at, bool nonempty = true) const {
    if (!j.is_array()) fail(at, "found " + shown(j) + ", expected an array");
    if (nonempty && j.empty()) fail(at, "an empty array, expected at least one item");
    return j;
  }
  double number(const Json& j, const std::string& at) const {
    if (!j.is_number()) fail(at, "found " + shown(j) + ", expected a number");
    return j.get<double>();
  }
  std::string text(const Json& j, const std::string& at) const {
    if (!j.is_string()) fail(at, "found " + shown(j) + ", expected a string");
    return j.get<std::string>();
  }
  long long id(const Json& j, const std::string& at) const {
    if (!j.is_number_integer()) fail(at, "found " + shown(j) + ", expected an integer id");
    return j.get<long long>();
  }

 private:
  std::string path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read Extra-P file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json parse(const std::string& text, const std::string& path, const std::string& at) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw DataError("'" + path + "'" + (at.empty() ? "" : " " + at) + ": not JSON (at byte " +
                    std::to_string(e.byte) + "; a truncated or malformed record?)");
  } catch (const Json::exception& e) {  // e.g. a number out of the range of a double
    throw DataError("'" + path + "'" + (at.empty() ? "" : " " + at) + ": not readable JSON (" +
                    e.what() + ")");
  }
}

std::vector<std::string> names(const Json& params, const Where& w) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < params.size(); ++k)
    out.push_back(w.text(params[k], "parameters[" + std::to_string(k) + "]"));
  return out;
}

// {"parameters": [names], "measurements": {callpath: {metric: [{point, values}]}}}
std::vector<ExtrapSet> read_current(const Json& j, const std::string& path, const Where& w) {
  const std::vector<std::string> params =
      names(w.array(w.member(j, "parameters", "(top level)"), "parameters"), w);
  Sets sets(params);
  const Json& m = w.member(j, "measurements", "(top level)");
  if (!m.is_object())
    w.fail("measurements", "found " + shown(m) + ", expected an object of callpaths");
  for (const auto& [callpath, metrics] : m.items()) {
    const std::string at_cp = "measurements[" + quoted(callpath) + "]";
    if (!metrics.is_object())
      w.fail(at_cp, "found " + shown(metrics) + ", expected an object of metrics");
    for (const auto& [metric, points] : metrics.items()) {
      const std::string at_m = at_cp + "[" + quoted(metric) + "]";
      w.array(points, at_m, false);
      for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string at = at_m + "[" + std::to_string(i) + "]";
        const Json& pt = w.array(w.member(points[i], "point", at), at + ".point");
        if (pt.size() != params.size()) {
          w.fail(at + ".point", "found " + std::to_string(pt.size()) + " coordinate(s), expected " +
                                    std::to_string(params.size()) + " (one per parameter)");
        }
        std::vector<double> point;
        for (std::size_t k = 0; k < pt.size(); ++k)
          point.push_back(w.number(pt[k], at + ".point[" + std::to_string(k) + "]"));
        const Json& values = w.array(w.member(points[i], "values", at), at + ".values");
        for (std::size_t v = 0; v < values.size(); ++v) {
          sets.add(callpath, metric, point,
                   w.number(values[v], at + ".values[" + std::to_string(v) + "]"));
        }
      }
    }
  }
  return sets.take(path);
}

// id -> name of the older format's lists of {"id", "name"}.
std::map<long long, std::string> named_ids(const Json& j, const char* key, const Where& w) {
  std::map<long long, std::string> out;
  const Json& list = w.array(w.member(j, key, "(top level)"), key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    const long long id = w.id(w.member(list[i], "id", at), at + ".id");
    if (!out.emplace(id, w.text(w.member(list[i], "name", at), at + ".name")).second) {
      w.fail(at + ".id", "id " + std::to_string(id) + " appears twice");
    }
  }
  return out;
}

const std::string& lookup(const std::map<long long, std::string>& m, long long id, const char* what,
                          const std::string& at, const Where& w) {
  const auto it = m.find(id);
  if (it == m.end()) w.fail(at, std::string("no ") + what + " with id " + std::to_string(id));
  return it->second;
}

// The older format: lists of parameters, callpaths, metrics and coordinates by id, and one
// measurement (one value) per item of "measurements".
std::vector<ExtrapSet> read_older(const Json& j, const std::string& path, const Where& w) {
  const auto params = named_ids(j, "parameters", w), callpaths = named_ids(j, "callpaths", w),
             metrics = named_ids(j, "metrics", w);
  std::vector<std::string> order;
  std::map<long long, std::size_t> column;
  for (const auto& [id, name] : params) {
    column[id] = order.size();
    order.push_back(name);
  }
  std::map<long long, std::vector<double>> coords;
  const Json& cs = w.array(w.member(j, "coordinates", "(top level)"), "coordinates");
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const std::string at = "coordinates[" + std::to_string(i) + "]";
    const long long id = w.id(w.member(cs[i], "id", at), at + ".id");
    std::vector<double> point(order.size(), 0.0);
    std::vector<bool> seen(order.size(), false);
    const Json& pairs =
        w.array(w.member(cs[i], "parameter_value_pairs", at), at + ".parameter_value_pairs");
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const std::string pat = at + ".parameter_value_pairs[" + std::to_string(k) + "]";
      const long long pid = w.id(w.member(pairs[k], "parameter_id", pat), pat + ".parameter_id");
      const auto c = column.find(pid);
      if (c == column.end())
        w.fail(pat + ".parameter_id", "no parameter with id " + std::to_string(pid));
      point[c->second] =
          w.number(w.member(pairs[k], "parameter_value", pat), pat + ".parameter_value");
      seen[c->second] = true;
    }
    for (std::size_t k = 0; k < seen.size(); ++k) {
      if (!seen[k]) w.fail(at, "no value of parameter '" + order[k] + "'");
    }
    if (!coords.emplace(id, point).second)
      w.fail(at + ".id", "id " + std::to_string(id) + " appears twice");
  }
  Sets sets(order);
  const Json& ms = w.array(w.member(j, "measurements", "(top level)"), "measurements");
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const std::string at = "measurements[" + std::to_string(i) + "]";
    const Json& m = ms[i];
    const std::string& cp =
        lookup(callpaths, w.id(w.member(m, "callpath_id", at), at + ".callpath_id"), "callpath",
               at + ".callpath_id", w);
    const std::string& me = lookup(metrics, w.id(w.member(m, "metric_id", at), at + ".metric_id"),
                                   "metric", at + ".metric_id", w);
    const long long cid = w.id(w.member(m, "coordinate_id", at), at + ".coordinate_id");
    const auto c = coords.find(cid);
    if (c == coords.end())
      w.fail(at + ".coordinate_id", "no coordinate with id " + std::to_string(cid));
    sets.add(cp, me, c->second, w.number(w.member(m, "value", at), at + ".value"));
  }
  return sets.take(path);
}

std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (auto& ch : e) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return e;
}

}  // namespace

std::vector<ExtrapSet> read_extrap_json(const std::string& path) {
  const Json j = parse(read_all(path), path, "");
  const Where w(path);
  const Json& params = w.member(j, "parameters", "(top level)");
  w.array(params, "parameters");
  return params.front().is_object() ? read_older(j, path, w) : read_current(j, path, w);
}

std::vector<ExtrapSet> read_extrap_jsonl(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read Extra-P file '" + path + "'");
  const Where w(path);
  std::vector<std::string> params;
  std::optional<Sets> sets;
  std::size_t line = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = "line " + std::to_string(line);
    const Json j = parse(raw, path, at);
    const Json& ps = w.member(j, "params", at);
    if (!ps.is_object() || ps.empty())
      w.fail(at + " params", "found " + shown(ps) + ", expected an object of parameter values");
    if (!sets) {  // the first record names the parameters, in its order
      for (const auto& [name, v] : ps.items()) params.push_back(name);
      sets.emplace(params);
    }
    std::vector<double> point;
    for (const auto& name : params) {
      if (!ps.contains(name) || ps.size() != params.size()) {
        std::string want;
        for (const auto& p : params) want += (want.empty() ? "" : ", ") + p;
        w.fail(at + " params", "found " + shown(ps) +
                                   ", expected the parameters of the first record (" + want + ")");
      }
      point.push_back(w.number(ps[name], at + " params[" + quoted(name) + "]"));
    }
    const std::string cp = j.contains("callpath") ? w.text(j["callpath"], at + " callpath") : "";
    const std::string me = j.contains("metric") ? w.text(j["metric"], at + " metric") : "";
    const Json& value = w.member(j, "value", at);
    if (value.is_array()) {
      w.array(value, at + " value");
      for (std::size_t v = 0; v < value.size(); ++v)
        sets->add(cp, me, point, w.number(value[v], at + " value[" + std::to_string(v) + "]"));
    } else {
      sets->add(cp, me, point, w.number(value, at + " value"));
    }
  }
  if (!sets) throw DataError("'" + path + "': no records; nothing to import");
  return sets->take(path);
}

void for_each_extrap_set(const std::string& path, const std::function<void(ExtrapSet&&)>& each) {
  const std::string e = lower_extension(path);
  if (e != ".json" && e != ".jsonl") return for_each_extrap_text_set(path, each);
  std::vector<ExtrapSet> sets = e == ".json" ? read_extrap_json(path) : read_extrap_jsonl(path);
  for (auto& s : sets) each(std::move(s));
}

}  // namespace perfit::io
