// Small text helpers for messages that list choices ("columns: p, b, d").
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace perfit {

// "a, b, c"; `empty` when there is nothing to list.
inline std::string join(const std::vector<std::string>& items, const std::string& empty = "(none)") {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? empty : s;
}

// printf's %.<digits>g, for numbers in messages ("1e-06", "0.0016").
inline std::string format_g(double v, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// "a,b,,c" -> {"a", "b", "c"}: the pieces between separators, empty ones dropped.
inline std::vector<std::string> split_list(const std::string& text, char sep = ',') {
  std::vector<std::string> out;
  std::string cur;
  for (const char ch : text + sep) {
    if (ch != sep) {
      cur += ch;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

}  // namespace perfit
