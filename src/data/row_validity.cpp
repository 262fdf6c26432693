#include "perfit/data/row_validity.hpp"

#include <algorithm>
#include <cmath>

namespace perfit::data {

RowValidity check_rows(const MeasurementTable& t, const std::vector<std::string>& columns) {
  RowValidity v;
  v.keep.assign(t.rows(), true);
  bool any_bad = false;
  for (const auto& name : columns) {
    const Column* c = t.find(name);
    if (!c || c->type() != ColumnType::float64) continue;  // int64 columns cannot hold NaN
    // Counted without a branch first: a streamed fit checks every row of every chunk, and
    // almost all are finite (the bits of `keep` are touched only for a column with bad rows).
    std::size_t bad = 0;
    const auto& x = c->f64();
    for (const double xi : x) bad += std::isfinite(xi) ? 0 : 1;
    if (bad > 0) {
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i])) v.keep[i] = false;
      any_bad = true;
    }
    v.columns.push_back(name);
    v.invalid.push_back(bad);
  }
  if (any_bad)
    v.rows_invalid = static_cast<std::size_t>(std::count(v.keep.begin(), v.keep.end(), false));
  return v;
}

std::string describe_invalid(const RowValidity& v) {
  std::string s;
  for (std::size_t i = 0; i < v.columns.size(); ++i) {
    if (v.invalid[i] == 0) continue;
    s += (s.empty() ? "" : ", ") + std::string("column '") + v.columns[i] +
         "': " + std::to_string(v.invalid[i]) + (v.invalid[i] == 1 ? " row" : " rows");
  }
  return s;
}

}  // namespace perfit::data
