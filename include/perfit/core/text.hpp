// Small text helpers for messages that list choices ("columns: p, b, d").
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace perfit {

// "a, b, c"; `empty` when there is nothing to list.
inline std::string join(const std::vector<std::string>& items,
                        const std::string& empty = "(none)") {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? empty : s;
}

// "a, b, c, ... and 9997 more": a message names a few of 10^5 sets, not all.
inline std::string join_some(const std::vector<std::string>& items, std::size_t shown = 8) {
  if (items.size() <= shown) return join(items);
  std::string s;
  for (std::size_t i = 0; i < shown; ++i) s += items[i] + ", ";
  return s + "... and " + std::to_string(items.size() - shown) + " more";
}

// A name as a message shows it: as it is when plain, else quoted with its control characters
// and surrounding spaces made visible ('epoch_s\r', ' gpus'), so that two names that print
// alike do not read alike.
inline std::string visible_name(const std::string& name) {
  const bool plain = !name.empty() && name.front() != ' ' && name.back() != ' ' &&
                     std::none_of(name.begin(), name.end(),
                                  [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (plain) return name;
  std::string out = "'";
  for (const char c : name) {
    if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) + "0123456789abcdef"[c & 15];
    else
      out += c;
  }
  return out + "'";
}

// printf's %.<digits>g, for numbers in messages ("1e-06", "0.0016").
inline std::string format_g(double v, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// "a, b,,c" -> {"a", "b", "c"}: the pieces between separators, blanks around them and empty
// ones dropped.
inline std::vector<std::string> split_list(const std::string& text, char sep = ',') {
  std::vector<std::string> out;
  std::string cur;
  for (const char ch : text + sep) {
    if (ch != sep) {
      if (ch != ' ' || !cur.empty()) cur += ch;
    } else {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

// [A-Za-z_][A-Za-z0-9_]*: a name the expression grammar and plain YAML keys take as they are.
// By hand: std::regex was 2% of a selection over 10^4 sets (a model is validated per winner).
inline bool is_identifier(const std::string& n) {
  const auto letter = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  if (n.empty() || !letter(n.front())) return false;
  return std::all_of(n.begin(), n.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

// The choice closest to `word` by edit distance, if close enough to be a typo of it (at most a
// third of its letters differ); "" otherwise. For "did you mean" in messages.
inline std::string closest_match(const std::string& word, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(1, word.size() / 3) + 1;
  for (const auto& c : choices) {
    std::vector<std::size_t> row(c.size() + 1);
    for (std::size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= c.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (word[i - 1] == c[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    if (row[c.size()] < best_d) {
      best_d = row[c.size()];
      best = c;
    }
  }
  return best;
}

}  // namespace perfit
