#include "perfit/io/extrap_reader.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <string_view>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

constexpr std::string_view kBlank = " \t\r";

constexpr bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Calls each(word) for the whitespace-separated words of `text` (views into it), in order;
// returns how many. A loop of its own: find_first_of over kBlank was 15% of an import's reading.
template <class Each>
std::size_t for_each_word(std::string_view text, Each&& each) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (blank(text[i])) {
      ++i;
      continue;
    }
    const std::size_t at = i;
    while (i < text.size() && !blank(text[i])) ++i;
    each(text.substr(at, i - at));
    ++n;
  }
  return n;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  for_each_word(text, [&](std::string_view w) { out.push_back(w); });
  return out;
}

struct Reader {
  std::string path;
  const std::function<void(ExtrapSet&&)>* each = nullptr;
  std::size_t line = 0;
  std::vector<std::string> params;
  std::vector<std::vector<double>> points;
  std::string region, metric;
  std::optional<ExtrapSet> open;  // the set of (region, metric) receiving DATA
  std::size_t next_point = 0;
  std::size_t handed = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError("'" + path + "' line " + std::to_string(line) + ": " + what);
  }

  // Python's float() as Extra-P reads the file: decimal or exponent notation, inf and nan, a
  // leading '+'; anything else, or a value beyond a double, is refused.
  double number(std::string_view text) const {
    std::string_view digits = text;
    if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size())
      fail("found '" + std::string(text) + "', expected a number");
    return v;
  }

  void add_points(std::string_view text) {
    if (params.empty()) fail("POINTS before any PARAMETER");
    if (text.find('(') == std::string_view::npos) {
      if (params.size() != 1)
        fail("POINTS without ( ) for " + std::to_string(params.size()) + " parameters");
      for (const auto w : words(text)) points.push_back({number(w)});
      return;
    }
    std::size_t at = 0;
    while ((at = text.find('(', at)) != std::string_view::npos) {
      const std::size_t end = text.find(')', at);
      if (end == std::string_view::npos) fail("POINTS: '(' without ')'");
      std::vector<double> p;
      for (const auto w : words(text.substr(at + 1, end - at - 1))) p.push_back(number(w));
      if (p.size() != params.size()) {
        fail("POINTS: a point of " + std::to_string(p.size()) + " values, expected " +
             std::to_string(params.size()) + " (one per PARAMETER)");
      }
      points.push_back(p);
      at = end + 1;
    }
  }

  // The set that received DATA goes to the caller: memory holds one set at a time.
  void close() {
    if (!open) return;
    ++handed;
    ExtrapSet s = std::move(*open);
    open.reset();
    (*each)(std::move(s));
  }

  // A REGION or METRIC line: the next DATA lines start again at the first point.
  void start(std::string& field, std::string_view value) {
    close();
    field = std::string(value);
    next_point = 0;
  }

  ExtrapSet& current() {
    if (!open) {
      open.emplace();
      open->region = region;
      open->metric = metric;
      for (const auto& p : params)
        open->table.add_column(data::Column::empty(p, data::ColumnType::float64));
      open->table.add_column(data::Column::empty(kExtrapValueColumn, data::ColumnType::float64));
    }
    return *open;
  }

  void add_data(std::string_view text) {
    if (params.empty()) fail("DATA before any PARAMETER");
    if (next_point >= points.size()) {
      fail("more DATA lines (" + std::to_string(next_point + 1) + ") than POINTS (" +
           std::to_string(points.size()) + ")");
    }
    auto& cols = current().table.columns();
    const std::size_t values = for_each_word(text, [&](std::string_view w) {
      const double v = number(w);
      for (std::size_t k = 0; k < params.size(); ++k)
        cols[k].f64().push_back(points[next_point][k]);
      cols[params.size()].f64().push_back(v);
    });
    if (values == 0) fail("DATA without values");
    ++next_point;
  }

  void parse(std::string_view raw) {
    const std::size_t first = raw.find_first_not_of(kBlank);
    if (first == std::string_view::npos || raw[first] == '#') return;
    std::string_view text = raw.substr(first);
    const std::size_t sp = text.find_first_of(" \t");
    const std::string_view field = text.substr(0, sp);
    std::string_view value =
        sp == std::string_view::npos ? std::string_view() : text.substr(sp + 1);
    while (!value.empty() && kBlank.find(value.back()) != std::string_view::npos)
      value.remove_suffix(1);
    if (field == "PARAMETER") {
      if (!points.empty()) fail("PARAMETER after POINTS: declare every parameter first");
      for (const auto w : words(value)) params.emplace_back(w);
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
      fail("unknown field '" + std::string(field) +
           "', expected PARAMETER, POINTS, REGION, METRIC or DATA");
    }
  }
};

}  // namespace

void for_each_extrap_text_set(const std::string& path,
                              const std::function<void(ExtrapSet&&)>& each) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read Extra-P file '" + path + "'");
  Reader r;
  r.path = path;
  r.each = &each;
  for (std::string raw; std::getline(in, raw);) {
    ++r.line;
    r.parse(raw);
  }
  r.close();
  if (r.handed == 0) throw DataError("'" + path + "': no DATA lines; nothing to import");
}

std::vector<ExtrapSet> read_extrap_text(const std::string& path) {
  std::vector<ExtrapSet> sets;
  for_each_extrap_text_set(path, [&](ExtrapSet&& s) { sets.push_back(std::move(s)); });
  return sets;
}

}  // namespace perfit::io
