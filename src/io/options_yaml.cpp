#include "perfit/io/options_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

std::string scalar_text(const YAML::Node& n) { return n.IsNull() ? std::string() : n.Scalar(); }

// A sequence in the rows text form: [[1, 2], [0]] -> "1,2;0"; [{a: 1, b: 2}, {a: 3}] ->
// "a=1,b=2;a=3"; [x, y] -> "x;y".
std::string rows_text(const YAML::Node& seq, const std::string& key) {
  std::string out;
  bool first_row = true;
  for (const auto& row : seq) {
    if (!first_row) out += ';';
    first_row = false;
    std::string r;
    if (row.IsSequence()) {
      for (const auto& x : row) r += (r.empty() ? "" : ",") + scalar_text(x);
    } else if (row.IsMap()) {
      for (const auto& kv : row)
        r += (r.empty() ? "" : ",") + kv.first.Scalar() + "=" + scalar_text(kv.second);
    } else if (row.IsScalar()) {
      r = row.Scalar();
    } else if (!row.IsNull()) {
      throw ConfigError("key '" + key + "': a list entry is neither a list, a map nor a value");
    }
    out += r;
  }
  return out;
}

// The YAML map as (dotted key, text) in file order.
void flatten(const YAML::Node& map, const std::string& prefix, KeyTexts& out) {
  for (const auto& kv : map) {
    const std::string key = prefix + kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (v.IsMap()) {
      flatten(v, key + ".", out);
    } else if (v.IsSequence()) {
      out.emplace_back(key, rows_text(v, key));
    } else {
      out.emplace_back(key, scalar_text(v));
    }
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

void emit_rows(YAML::Emitter& e, const std::string& text) {
  e << YAML::BeginSeq;
  for (const auto& row : split(text, ';')) {
    const auto items = split(row, ',');
    const bool pairs = row.find('=') != std::string::npos;
    e << YAML::Flow << (pairs ? YAML::BeginMap : YAML::BeginSeq);
    for (const auto& it : items) {
      if (pairs) {
        const auto eq = it.find('=');
        e << YAML::Key << it.substr(0, eq) << YAML::Value << it.substr(eq + 1);
      } else {
        e << it;
      }
    }
    e << (pairs ? YAML::EndMap : YAML::EndSeq);
  }
  e << YAML::EndSeq;
}

nlohmann::ordered_json json_scalar(const std::string& t, OptionKind kind) {
  if (kind == OptionKind::boolean) return t == "true";
  if (kind == OptionKind::number) {
    std::int64_t i = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
    if (ec == std::errc() && p == t.data() + t.size()) return i;
    double d = 0;
    auto [q, ec2] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (ec2 == std::errc() && q == t.data() + t.size() && std::isfinite(d)) return d;
  }
  return t;  // text, and infinities (JSON has no inf)
}

}  // namespace

KeyTexts read_options_yaml(const std::string& text, const std::string& where) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(where + ": YAML error at line " + std::to_string(e.mark.line + 1) + ": " +
                      e.msg);
  }
  KeyTexts pairs;
  if (root.IsNull()) return pairs;
  if (!root.IsMap()) throw ConfigError(where + " is not a YAML map of options");
  flatten(root, "", pairs);
  return pairs;
}

namespace {

// Text yaml-cpp writes double-quoted as it is: printable ASCII but the quote and backslash.
bool quotes_verbatim(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char ch) { return ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\'; });
}

// One top-level entry (a key, or a section and its keys) as block YAML.
std::string emit_entry(const std::vector<OptionValue>& values, std::size_t begin, std::size_t end,
                       const std::string& section) {
  // A top-level text option as yaml-cpp writes it, without its emitter: the set of each of 10^4
  // winners' run configurations (the one entry that changes) took 1.5% of that selection.
  if (section.empty() && end == begin + 1 && values[begin].kind == OptionKind::text &&
      quotes_verbatim(values[begin].text)) {
    std::string out(values[begin].key);
    return out.append(": \"").append(values[begin].text).append("\"");
  }
  YAML::Emitter e;
  e << YAML::BeginMap;
  if (!section.empty()) e << YAML::Key << section << YAML::Value << YAML::BeginMap;
  for (std::size_t i = begin; i < end; ++i) {
    const OptionValue& v = values[i];
    const auto dot = v.key.rfind('.');
    e << YAML::Key << std::string(v.key.substr(dot == std::string::npos ? 0 : dot + 1))
      << YAML::Value;
    if (v.kind == OptionKind::rows) {
      emit_rows(e, v.text);
    } else if (v.kind == OptionKind::text) {
      e << YAML::DoubleQuoted << v.text;
    } else {
      e << v.text;
    }
  }
  if (!section.empty()) e << YAML::EndMap;
  e << YAML::EndMap;
  return e.c_str();
}

std::string_view section_of(const OptionValue& v) {
  const auto dot = v.key.rfind('.');
  return dot == std::string::npos ? std::string_view() : v.key.substr(0, dot);
}

}  // namespace

std::string options_to_yaml(const std::vector<OptionValue>& values) {
  // Entry by entry, each kept from the last call while its values stay the same: a selection
  // over 10^5 sets writes every winner's run configuration, which differs from the last one in
  // the set only, and yaml-cpp's emitter (each scalar checked against its regexes) was 8% of
  // that run; keeping entries by their content instead cost 3%.
  struct Entry {
    std::size_t begin, end;
    std::string text;
  };
  struct Last {  // owns its key: the next call's values may come from another table
    std::string key;
    OptionKind kind;
    std::string text;
  };
  thread_local std::vector<Last> last;
  thread_local std::vector<Entry> entries;
  const auto same = [&](std::size_t i) {
    return i < last.size() && last[i].key == values[i].key && last[i].kind == values[i].kind &&
           last[i].text == values[i].text;
  };
  std::vector<Entry> now;
  now.reserve(entries.size());
  std::string out;
  out.reserve(1024);
  std::size_t e = 0;  // the last call's entry that starts at `begin`, if the keys still line up
  for (std::size_t begin = 0; begin < values.size();) {
    const std::string_view section = section_of(values[begin]);
    std::size_t end = begin + 1;
    // Top-level keys one entry each; a section's keys (listed together by the tables) one entry.
    while (!section.empty() && end < values.size() && section_of(values[end]) == section) ++end;
    while (e < entries.size() && entries[e].begin < begin) ++e;
    bool kept = e < entries.size() && entries[e].begin == begin && entries[e].end == end;
    for (std::size_t i = begin; kept && i < end; ++i) kept = same(i);
    now.push_back(
        {begin, end,
         kept ? std::move(entries[e].text) : emit_entry(values, begin, end, std::string(section))});
    for (std::size_t i = begin; !kept && i < end && last.size() == values.size(); ++i)
      last[i] = {std::string(values[i].key), values[i].kind, values[i].text};
    if (!out.empty()) out += '\n';
    out += now.back().text;
    begin = end;
  }
  if (last.size() != values.size()) {
    last.clear();
    for (const auto& v : values) last.push_back({std::string(v.key), v.kind, v.text});
  }
  entries = std::move(now);
  return out.empty() ? "{}" : out;
}

std::string options_to_json(const std::vector<OptionValue>& values) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& v : values) {
    nlohmann::ordered_json* at = &j;
    const auto parts = split(std::string(v.key), '.');
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) at = &(*at)[parts[i]];
    nlohmann::ordered_json value;
    if (v.kind == OptionKind::rows) {
      value = nlohmann::ordered_json::array();
      for (const auto& row : split(v.text, ';')) {
        nlohmann::ordered_json r = row.find('=') != std::string::npos
                                       ? nlohmann::ordered_json::object()
                                       : nlohmann::ordered_json::array();
        for (const auto& it : split(row, ',')) {
          const auto eq = it.find('=');
          if (eq == std::string::npos) {
            r.push_back(json_scalar(it, OptionKind::number));
          } else {
            r[it.substr(0, eq)] = json_scalar(it.substr(eq + 1), OptionKind::number);
          }
        }
        value.push_back(r);
      }
    } else {
      value = json_scalar(v.text, v.kind);
    }
    (*at)[parts.back()] = value;
  }
  return j.dump();
}

}  // namespace perfit::io
