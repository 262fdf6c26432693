#include "perfit/data/column_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace perfit::data {

namespace {
// Collects distinct values until there are too many to be worth listing.
template <class T, class Text>
void collect_distinct(const std::vector<T>& v, ColumnSummary& s, Text text) {
  std::set<T> seen;
  for (const T& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(x)) continue;
    }
    seen.insert(x);
    if (seen.size() > ColumnSummary::kMaxDistinct) {
      s.distinct_truncated = true;
      break;
    }
  }
  s.n_distinct = seen.size();
  if (!s.distinct_truncated) {
    for (const T& x : seen) s.distinct.push_back(text(x));
  }
}
}  // namespace

ColumnSummary summarize(const Column& c) {
  ColumnSummary s;
  s.name = c.name();
  s.type = c.type();
  s.rows = c.size();
  switch (c.type()) {
    case ColumnType::float64: {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (double x : c.f64()) {
        if (!std::isfinite(x)) {
          ++s.non_finite;
          continue;
        }
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      if (s.non_finite < s.rows) s.min = lo, s.max = hi;
      collect_distinct(c.f64(), s, [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.10g", x);
        return std::string(buf);
      });
      break;
    }
    case ColumnType::int64: {
      if (!c.i64().empty()) {
        auto [lo, hi] = std::minmax_element(c.i64().begin(), c.i64().end());
        s.min = static_cast<double>(*lo);
        s.max = static_cast<double>(*hi);
      }
      collect_distinct(c.i64(), s, [](std::int64_t x) { return std::to_string(x); });
      break;
    }
    case ColumnType::string:
      collect_distinct(c.str(), s, [](const std::string& x) { return x; });
      break;
  }
  return s;
}

}  // namespace perfit::data
