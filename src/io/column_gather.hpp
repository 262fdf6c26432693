// Values of one column gathered from pieces of others (the sets of a pack as it is written, the
// decoded blocks of one as it is read), then one Column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::io::detail {

class Gather {
 public:
  Gather(std::string name, data::ColumnType type) : name_(std::move(name)), type_(type) {}
  void reserve(std::size_t n) {
    if (type_ == data::ColumnType::float64) f64_.reserve(n);
    if (type_ == data::ColumnType::int64) i64_.reserve(n);
    if (type_ == data::ColumnType::string) str_.reserve(n);
  }
  void add(const data::Column& c, std::size_t from, std::size_t to) {
    const auto f = static_cast<std::ptrdiff_t>(from), t = static_cast<std::ptrdiff_t>(to);
    if (type_ == data::ColumnType::float64)
      f64_.insert(f64_.end(), c.f64().begin() + f, c.f64().begin() + t);
    if (type_ == data::ColumnType::int64)
      i64_.insert(i64_.end(), c.i64().begin() + f, c.i64().begin() + t);
    if (type_ == data::ColumnType::string)
      str_.insert(str_.end(), c.str().begin() + f, c.str().begin() + t);
  }
  data::Column take() {
    if (type_ == data::ColumnType::float64) return data::Column(name_, std::move(f64_));
    if (type_ == data::ColumnType::int64) return data::Column(name_, std::move(i64_));
    return data::Column(name_, std::move(str_));
  }

 private:
  std::string name_;
  data::ColumnType type_;
  std::vector<double> f64_;
  std::vector<std::int64_t> i64_;
  std::vector<std::string> str_;
};

}  // namespace perfit::io::detail
