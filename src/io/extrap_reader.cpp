#include "perfit/io/extrap_reader.hpp"

#include <fstream>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

struct Reader {
  std::string path;
  std::size_t line = 0;
  std::vector<std::string> params;
  std::vector<std::vector<double>> points;
  std::vector<ExtrapSet> sets;
  std::string region, metric;
  std::size_t next_point = 0;
  bool open = false;  // a set of (region, metric) has received DATA

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError("'" + path + "' line " + std::to_string(line) + ": " + what);
  }

  double number(const std::string& text) const {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size()) fail("found '" + text + "', expected a number");
    return v;
  }

  std::vector<std::string> words(const std::string& text) const {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }

  void add_points(const std::string& text) {
    if (params.empty()) fail("POINTS before any PARAMETER");
    if (text.find('(') == std::string::npos) {
      if (params.size() != 1)
        fail("POINTS without ( ) for " + std::to_string(params.size()) + " parameters");
      for (const auto& w : words(text)) points.push_back({number(w)});
      return;
    }
    std::size_t at = 0;
    while ((at = text.find('(', at)) != std::string::npos) {
      const std::size_t end = text.find(')', at);
      if (end == std::string::npos) fail("POINTS: '(' without ')'");
      std::vector<double> p;
      for (const auto& w : words(text.substr(at + 1, end - at - 1))) p.push_back(number(w));
      if (p.size() != params.size()) {
        fail("POINTS: a point of " + std::to_string(p.size()) + " values, expected " +
             std::to_string(params.size()) + " (one per PARAMETER)");
      }
      points.push_back(p);
      at = end + 1;
    }
  }

  // A REGION or METRIC line: the next DATA lines start again at the first point.
  void start(std::string& field, const std::string& value) {
    field = value;
    next_point = 0;
    open = false;
  }

  ExtrapSet& current() {
    if (!open) {
      ExtrapSet s;
      s.region = region;
      s.metric = metric;
      sets.push_back(std::move(s));
      open = true;
    }
    return sets.back();
  }

  void add_data(const std::string& text) {
    if (params.empty()) fail("DATA before any PARAMETER");
    if (next_point >= points.size()) {
      fail("more DATA lines (" + std::to_string(next_point + 1) + ") than POINTS (" +
           std::to_string(points.size()) + ")");
    }
    ExtrapSet& s = current();
    if (s.table.cols() == 0) {
      for (const auto& p : params)
        s.table.add_column(data::Column::empty(p, data::ColumnType::float64));
      s.table.add_column(data::Column::empty(kExtrapValueColumn, data::ColumnType::float64));
    }
    const std::vector<std::string> values = words(text);
    if (values.empty()) fail("DATA without values");
    for (const auto& w : values) {
      const double v = number(w);
      auto& cols = s.table.columns();
      for (std::size_t k = 0; k < params.size(); ++k)
        cols[k].f64().push_back(points[next_point][k]);
      cols[params.size()].f64().push_back(v);
    }
    ++next_point;
  }

  void parse(const std::string& raw) {
    const std::size_t first = raw.find_first_not_of(" \t\r");
    if (first == std::string::npos || raw[first] == '#') return;
    const std::string text = raw.substr(first);
    const std::size_t sp = text.find_first_of(" \t");
    const std::string field = text.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : text.substr(sp + 1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
      value.pop_back();
    if (field == "PARAMETER") {
      if (!points.empty()) fail("PARAMETER after POINTS: declare every parameter first");
      for (const auto& w : words(value)) params.push_back(w);
      if (params.size() > 4) fail("more than 4 parameters (Extra-P's text format allows 4)");
    } else if (field == "POINTS") {
      add_points(value);
    } else if (field == "REGION") {
      start(region, value);
    } else if (field == "METRIC") {
      start(metric, value);
    } else if (field == "DATA") {
      add_data(value);
    } else {
      fail("unknown field '" + field + "', expected PARAMETER, POINTS, REGION, METRIC or DATA");
    }
  }
};

}  // namespace

std::vector<ExtrapSet> read_extrap_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read Extra-P file '" + path + "'");
  Reader r;
  r.path = path;
  for (std::string raw; std::getline(in, raw);) {
    ++r.line;
    r.parse(raw);
  }
  if (r.sets.empty()) throw DataError("'" + path + "': no DATA lines; nothing to import");
  return std::move(r.sets);
}

}  // namespace perfit::io
