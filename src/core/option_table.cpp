#include "perfit/core/option_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "perfit/core/error.hpp"

namespace perfit {

namespace {
[[noreturn]] void bad(const std::string& text, const std::string& expected) {
  throw ConfigError("found '" + text + "', expected " + expected);
}
}  // namespace

double parse_real(const std::string& text, double lo, double hi, const std::string& expected) {
  double v = 0;
  if (text == "inf" || text == ".inf" || text == "+inf") {
    v = INFINITY;
  } else if (text == "-inf" || text == "-.inf") {
    v = -INFINITY;
  } else {
    const char* b = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
    const auto [p, ec] = std::from_chars(b, text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() || std::isnan(v)) {
      bad(text, expected);
    }
  }
  if (!(v >= lo && v <= hi)) bad(text, expected);
  return v;
}

std::uint64_t parse_whole(const std::string& text, std::uint64_t lo, std::uint64_t hi,
                          const std::string& expected) {
  // Accepts 1e6 as well as 1000000: counts are often written that way in configs.
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v != std::floor(v) ||
      !(v >= static_cast<double>(lo) && v <= static_cast<double>(hi))) {
    bad(text, expected);
  }
  // Exact for integers written out in full beyond 2^53 (seeds).
  std::uint64_t u = 0;
  const auto [q, ec2] = std::from_chars(text.data(), text.data() + text.size(), u);
  if (ec2 == std::errc() && q == text.data() + text.size()) {
    if (u < lo || u > hi) bad(text, expected);
    return u;
  }
  return static_cast<std::uint64_t>(v);
}

bool parse_bool(const std::string& text) {
  if (text == "true" || text == "True" || text == "yes" || text == "on" || text == "1") return true;
  if (text == "false" || text == "False" || text == "no" || text == "off" || text == "0")
    return false;
  bad(text, "true or false");
}

std::string format_real(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  const auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return ec == std::errc() ? std::string(buf, p) : std::to_string(v);
}

std::string range_text(double lo, double hi) {
  return "[" + format_real(lo) + ", " + format_real(hi) + "]";
}

std::string flag_of(const std::string& key) {
  std::string f = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  for (char& c : f) {
    if (c == '_') c = '-';
  }
  return f;
}

std::string keys_in_section(const std::vector<std::string>& keys, const std::string& key) {
  const auto dot = key.rfind('.');
  const std::string section = dot == std::string::npos ? "" : key.substr(0, dot + 1);
  std::string out;
  std::vector<std::string> sections;
  for (const auto& k : keys) {
    if (k.compare(0, section.size(), section) != 0) continue;
    std::string rest = k.substr(section.size());
    const auto d = rest.find('.');
    if (d != std::string::npos) rest = rest.substr(0, d);  // a sub-section, listed once
    if (std::find(sections.begin(), sections.end(), rest) != sections.end()) continue;
    sections.push_back(rest);
    out += (out.empty() ? "" : ", ") + rest;
  }
  return out;
}

}  // namespace perfit
