#include "perfit/data/row_validity.hpp"

#include <cmath>

namespace perfit::data {

RowValidity check_rows(const MeasurementTable& t, const std::vector<std::string>& columns) {
  RowValidity v;
  v.keep.assign(t.rows(), true);
  for (const auto& name : columns) {
    const Column* c = t.find(name);
    if (!c || c->type() != ColumnType::float64) continue;  // int64 columns cannot hold NaN
    std::size_t bad = 0;
    const auto& x = c->f64();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(x[i])) {
        ++bad;
        v.keep[i] = false;
      }
    }
    v.columns.push_back(name);
    v.invalid.push_back(bad);
  }
  for (const bool k : v.keep) v.rows_invalid += k ? 0 : 1;
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
