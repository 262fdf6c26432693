#include "csv_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <tuple>

#include "perfit/core/error.hpp"

namespace perfit::io::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Splits one line into fields (RFC 4180 quoting within a line). nullopt: unterminated quote.
std::optional<Fields> split(const std::string& line, char delim) {
  Fields out;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cur += ch;
      }
    } else if (ch == '"') {
      quoted = was_quoted = true;
    } else if (ch == delim) {
      out.text.push_back(cur);
      out.quoted.push_back(was_quoted);
      cur.clear();
      was_quoted = false;
    } else {
      cur += ch;
    }
  }
  if (quoted) return std::nullopt;
  out.text.push_back(cur);
  out.quoted.push_back(was_quoted);
  for (auto& f : out.text) {
    const auto b = f.find_first_not_of(" \t");
    const auto e = f.find_last_not_of(" \t");
    f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
  }
  return out;
}

std::optional<std::int64_t> parse_int(const std::string& s) {
  std::int64_t v = 0;
  const char* b = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(const std::string& s) {
  double v = 0;
  const char* b = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// A quoted number with thousands separators ("1,234.5", as spreadsheets and public benchmark
// tables export them) without the separators; any other text as it is. Only quoted fields:
// unquoted, "1,234" in a ';'-separated file may be a decimal comma.
std::string ungrouped(const std::string& cell, bool quoted) {
  if (!quoted || cell.find(',') == std::string::npos) return cell;
  static const std::regex grouped(R"([+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?([eE][+-]?[0-9]+)?)");
  if (!std::regex_match(cell, grouped)) return cell;
  std::string out;
  for (char c : cell) {
    if (c != ',') out += c;
  }
  return out;
}

}  // namespace

void Builder::to_float() {
  floats.assign(ints.begin(), ints.end());
  ints.clear();
  ints.shrink_to_fit();
  kind = Kind::float64;
}

void Builder::see(double value, std::size_t line) {
  if (!watch) return;
  const double v =
      watch_work > 0.0 ? (std::isfinite(value) && value > 0.0 ? watch_work / value : kNaN) : value;
  if (std::isfinite(v) && v > 0.0) return;
  if (watch->bad++ == 0) {
    watch->first_line = line;
    watch->first_value = value;
  }
}

void Builder::add(const std::string& written, bool quoted, std::size_t line,
                  const std::string& file) {
  const std::string cell = kind == Kind::text || forced_text ? written : ungrouped(written, quoted);
  if (cell.empty() && empties++ == 0) first_empty_line = line;
  if (kind == Kind::undecided) {
    if (cell.empty()) {
      ++leading_empty;
      see(kNaN, line);
      return;
    }
    first_line = line;
    if (forced_text || (!parse_int(cell) && !parse_double(cell))) {
      kind = Kind::text;
      if (keep) texts.assign(leading_empty, "");
      first_text = leading_empty > 0 ? std::string() : written;
    } else if (parse_int(cell) && leading_empty == 0) {
      kind = Kind::int64;
    } else {
      kind = Kind::float64;
      if (keep) floats.assign(leading_empty, kNaN);
    }
  }
  switch (kind) {
    case Kind::text:
      if (keep) texts.push_back(written);
      return;
    case Kind::int64:
      if (auto v = parse_int(cell)) {
        if (keep) ints.push_back(*v);
        see(static_cast<double>(*v), line);
        return;
      }
      to_float();
      [[fallthrough]];
    case Kind::float64:
      if (cell.empty()) {
        if (keep) floats.push_back(kNaN);
        see(kNaN, line);
        return;
      }
      if (auto v = parse_double(cell)) {
        if (keep) floats.push_back(*v);
        see(*v, line);
        return;
      }
      throw DataError("'" + file + "' line " + std::to_string(line) + ", column '" + name +
                      "': found '" + written +
                      "', expected a number (the column is numeric from "
                      "its first value on line " +
                      std::to_string(first_line) + "). Fix the value" +
                      (suggest_categorical
                           ? ", or pass --categorical " + name + " to keep the column as text"
                           : ""));
    case Kind::undecided:
      break;
  }
}

data::Column Builder::finish(std::size_t rows) {
  switch (kind) {
    case Kind::int64:
      return data::Column(name, std::move(ints));
    case Kind::float64:
      return data::Column(name, std::move(floats));
    case Kind::text:
      return data::Column(name, std::move(texts));
    case Kind::undecided:
      break;
  }
  // Every cell empty: a float column of NaN (says "no values" in inspect).
  return data::Column(name, std::vector<double>(rows, kNaN));
}

std::vector<std::string> read_header(std::istream& in, const std::string& path,
                                     const CsvOptions& options, std::size_t& line_no) {
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first column's name.
    if (line_no == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto h = split(line, options.delimiter);
    if (h && h->text.size() == 1) {
      for (const auto& [sep, name, flag] :
           {std::tuple<char, const char*, const char*>{';', "';'", ";"},
            {'\t', "tabs", "tab"},
            {',', "','", ","}}) {
        if (sep != options.delimiter && line.find(sep) != std::string::npos) {
          throw DataError("'" + path + "' line " + std::to_string(line_no) +
                          ": the header has no '" +
                          std::string(1, options.delimiter == '\t' ? ' ' : options.delimiter) +
                          "' but is separated by " + name + "; pass --delimiter '" + flag + "'");
        }
      }
    }
    if (!h)
      throw DataError("'" + path + "' line " + std::to_string(line_no) +
                      ": unterminated quote in the header");
    header = std::move(h->text);
    break;
  }
  if (header.empty()) {
    throw DataError("'" + path +
                    "' is empty; expected a header row naming the columns, then "
                    "one row per measurement");
  }
  return header;
}

std::vector<Builder> make_builders(const std::vector<std::string>& header,
                                   const CsvOptions& options, const std::string& path,
                                   std::size_t line_no) {
  std::vector<Builder> cols(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].empty()) {
      throw DataError("'" + path + "' line " + std::to_string(line_no) + ": header column " +
                      std::to_string(i + 1) + " has no name");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (header[j] == header[i]) {
        throw DataError("'" + path + "' line " + std::to_string(line_no) + ": column name '" +
                        header[i] + "' appears twice in the header");
      }
    }
    cols[i].name = header[i];
    cols[i].suggest_categorical = options.suggest_categorical;
    cols[i].forced_text = std::find(options.categorical.begin(), options.categorical.end(),
                                    header[i]) != options.categorical.end();
  }
  for (const auto& c : options.categorical) {
    if (std::find(header.begin(), header.end(), c) == header.end()) {
      throw ConfigError("--categorical names column '" + c + "', which '" + path +
                        "' does not have");
    }
  }
  return cols;
}

std::optional<Fields> next_row(std::istream& in, const std::string& path, char delimiter,
                               std::size_t columns, std::size_t& line_no) {
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto fields = split(line, delimiter);
    if (!fields) {
      throw DataError("'" + path + "' line " + std::to_string(line_no) +
                      ": unterminated quote (quoted fields may not span lines)");
    }
    if (fields->text.size() != columns) {
      throw DataError("'" + path + "' line " + std::to_string(line_no) + ": found " +
                      std::to_string(fields->text.size()) + " fields, expected " +
                      std::to_string(columns) + " as in the header (ragged row)");
    }
    return fields;
  }
  return std::nullopt;
}

}  // namespace perfit::io::detail
