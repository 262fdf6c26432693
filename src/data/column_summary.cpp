#include "perfit/data/column_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace perfit::data {

namespace {

// Collects distinct values until there are too many to be worth listing.
template <class T>
void collect_distinct(const std::vector<T>& v, std::set<T>& seen, bool& truncated) {
  for (const T& x : v) {
    if (truncated) return;
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(x)) continue;
    }
    seen.insert(x);
    truncated = seen.size() > ColumnSummary::kMaxDistinct;
  }
}

template <class T, class Text>
void list_distinct(const std::set<T>& seen, ColumnSummary& s, Text text) {
  s.n_distinct = seen.size();
  if (!s.distinct_truncated) {
    for (const T& x : seen) s.distinct.push_back(text(x));
  }
}

}  // namespace

ColumnSummarizer::ColumnSummarizer(std::string name, ColumnType type)
    : lo_(std::numeric_limits<double>::infinity()), hi_(-lo_) {
  s_.name = std::move(name);
  s_.type = type;
}

void ColumnSummarizer::add(const Column& c) {
  s_.rows += c.size();
  switch (c.type()) {
    case ColumnType::float64:
      for (double x : c.f64()) {
        if (!std::isfinite(x)) {
          ++s_.non_finite;
          continue;
        }
        lo_ = std::min(lo_, x);
        hi_ = std::max(hi_, x);
      }
      collect_distinct(c.f64(), reals_, s_.distinct_truncated);
      break;
    case ColumnType::int64:
      for (std::int64_t x : c.i64()) {
        lo_ = std::min(lo_, static_cast<double>(x));
        hi_ = std::max(hi_, static_cast<double>(x));
      }
      collect_distinct(c.i64(), whole_, s_.distinct_truncated);
      break;
    case ColumnType::string:
      collect_distinct(c.str(), text_, s_.distinct_truncated);
      break;
  }
}

ColumnSummary ColumnSummarizer::finish() const {
  ColumnSummary s = s_;
  switch (s.type) {
    case ColumnType::float64:
      if (s.non_finite < s.rows) s.min = lo_, s.max = hi_;
      list_distinct(reals_, s, [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.10g", x);
        return std::string(buf);
      });
      break;
    case ColumnType::int64:
      if (s.rows > 0) s.min = lo_, s.max = hi_;
      list_distinct(whole_, s, [](std::int64_t x) { return std::to_string(x); });
      break;
    case ColumnType::string:
      list_distinct(text_, s, [](const std::string& x) { return x; });
      break;
  }
  return s;
}

ColumnSummary summarize(const Column& c) {
  ColumnSummarizer s(c.name(), c.type());
  s.add(c);
  return s.finish();
}

}  // namespace perfit::data
