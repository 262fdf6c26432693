#include "perfit/io/csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>
#include <tuple>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

using data::Column;
using data::ColumnType;

struct Fields {
  std::vector<std::string> text;
  std::vector<bool> quoted;  // per field: written in quotes
};

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

// One column being filled while the file streams.
struct Builder {
  std::string name;
  bool forced_text = false;
  bool suggest_categorical = true;
  enum class Kind { undecided, int64, float64, text } kind = Kind::undecided;
  std::size_t leading_empty = 0;  // empty cells before the first value
  std::size_t first_line = 0;
  std::size_t empties = 0, first_empty_line = 0;  // every empty cell (numeric columns report them)
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> texts;

  void to_float() {
    floats.assign(ints.begin(), ints.end());
    ints.clear();
    ints.shrink_to_fit();
    kind = Kind::float64;
  }

  void add(const std::string& written, bool quoted, std::size_t line, const std::string& file) {
    const std::string cell =
        kind == Kind::text || forced_text ? written : ungrouped(written, quoted);
    if (cell.empty() && empties++ == 0) first_empty_line = line;
    if (kind == Kind::undecided) {
      if (cell.empty()) {
        ++leading_empty;
        return;
      }
      first_line = line;
      if (forced_text) {
        kind = Kind::text;
        texts.assign(leading_empty, "");
      } else if (parse_int(cell)) {
        kind = Kind::int64;
        if (leading_empty) {
          kind = Kind::float64;
          floats.assign(leading_empty, std::numeric_limits<double>::quiet_NaN());
        }
      } else if (parse_double(cell)) {
        kind = Kind::float64;
        floats.assign(leading_empty, std::numeric_limits<double>::quiet_NaN());
      } else {
        kind = Kind::text;
        texts.assign(leading_empty, "");
      }
    }
    switch (kind) {
      case Kind::text:
        texts.push_back(written);
        return;
      case Kind::int64:
        if (auto v = parse_int(cell)) {
          ints.push_back(*v);
          return;
        }
        to_float();
        [[fallthrough]];
      case Kind::float64:
        if (cell.empty()) {
          floats.push_back(std::numeric_limits<double>::quiet_NaN());
          return;
        }
        if (auto v = parse_double(cell)) {
          floats.push_back(*v);
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

  Column finish(std::size_t rows) {
    switch (kind) {
      case Kind::int64:
        return Column(name, std::move(ints));
      case Kind::float64:
        return Column(name, std::move(floats));
      case Kind::text:
        return Column(name, std::move(texts));
      case Kind::undecided:
        break;
    }
    // Every cell empty: a float column of NaN (says "no values" in inspect).
    return Column(name, std::vector<double>(rows, std::numeric_limits<double>::quiet_NaN()));
  }
};

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot open CSV '" + path + "' for reading (missing or no permission)");
  std::string line;
  std::size_t line_no = 0;
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
  CsvTable out;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto fields = split(line, options.delimiter);
    if (!fields) {
      throw DataError("'" + path + "' line " + std::to_string(line_no) +
                      ": unterminated quote (quoted fields may not span lines)");
    }
    if (fields->text.size() != header.size()) {
      throw DataError("'" + path + "' line " + std::to_string(line_no) + ": found " +
                      std::to_string(fields->text.size()) + " fields, expected " +
                      std::to_string(header.size()) + " as in the header (ragged row)");
    }
    for (std::size_t i = 0; i < header.size(); ++i) {
      cols[i].add(fields->text[i], fields->quoted[i], line_no, path);
    }
    out.line_of_row.push_back(line_no);
    if (options.keep_text) out.text.push_back(std::move(fields->text));
  }
  if (out.line_of_row.empty()) {
    throw DataError("'" + path + "' has a header but no data rows");
  }
  for (auto& c : cols) {
    const bool numeric = c.kind == Builder::Kind::int64 || c.kind == Builder::Kind::float64;
    if (numeric && c.empties > 0) out.empty.push_back({c.name, c.empties, c.first_empty_line});
    out.table.add_column(c.finish(out.line_of_row.size()));
  }
  return out;
}

}  // namespace perfit::io
