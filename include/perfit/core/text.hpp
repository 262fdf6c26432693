// Small text helpers for messages that list choices ("columns: p, b, d").
#pragma once

#include <string>
#include <vector>

namespace perfit {

// "a, b, c"; `empty` when there is nothing to list.
inline std::string join(const std::vector<std::string>& items, const std::string& empty = "(none)") {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? empty : s;
}

}  // namespace perfit
