#include "perfit/data/column.hpp"

#include <cstdio>
#include <type_traits>

#include "perfit/core/assert.hpp"
#include "perfit/core/error.hpp"

namespace perfit::data {

const char* to_string(ColumnType t) {
  switch (t) {
    case ColumnType::float64:
      return "float64";
    case ColumnType::int64:
      return "int64";
    case ColumnType::string:
      return "string";
  }
  return "?";
}

Column Column::empty(std::string name, ColumnType type) {
  switch (type) {
    case ColumnType::float64:
      return Column(std::move(name), std::vector<double>{});
    case ColumnType::int64:
      return Column(std::move(name), std::vector<std::int64_t>{});
    case ColumnType::string:
      break;
  }
  return Column(std::move(name), std::vector<std::string>{});
}

std::size_t Column::size() const {
  return std::visit([](const auto& v) { return v.size(); }, data_);
}

const std::vector<double>& Column::f64() const {
  PERFIT_ASSERT(type() == ColumnType::float64, "column is not float64");
  return std::get<0>(data_);
}
const std::vector<std::int64_t>& Column::i64() const {
  PERFIT_ASSERT(type() == ColumnType::int64, "column is not int64");
  return std::get<1>(data_);
}
const std::vector<std::string>& Column::str() const {
  PERFIT_ASSERT(type() == ColumnType::string, "column is not string");
  return std::get<2>(data_);
}
std::vector<double>& Column::f64() {
  PERFIT_ASSERT(type() == ColumnType::float64, "column is not float64");
  return std::get<0>(data_);
}
std::vector<std::int64_t>& Column::i64() {
  PERFIT_ASSERT(type() == ColumnType::int64, "column is not int64");
  return std::get<1>(data_);
}
std::vector<std::string>& Column::str() {
  PERFIT_ASSERT(type() == ColumnType::string, "column is not string");
  return std::get<2>(data_);
}

std::vector<double> Column::to_double() const {
  switch (type()) {
    case ColumnType::float64:
      return f64();
    case ColumnType::int64:
      return {i64().begin(), i64().end()};
    case ColumnType::string:
      break;
  }
  throw DataError("column '" + name_ +
                  "' holds strings (categorical), expected numbers. Use a numeric column here "
                  "or filter the set by this column's values.");
}

std::string Column::value_text(std::size_t i) const {
  switch (type()) {
    case ColumnType::float64: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", f64()[i]);
      return buf;
    }
    case ColumnType::int64:
      return std::to_string(i64()[i]);
    case ColumnType::string:
      break;
  }
  return str()[i];
}

void Column::append(const Column& other) {
  if (is_numeric() != other.is_numeric()) {
    throw DataError("column '" + name_ + "' is " + to_string(type()) + " but the new rows hold " +
                    to_string(other.type()) + " values; a column cannot mix numbers and strings");
  }
  if (type() == ColumnType::string) {
    str().insert(str().end(), other.str().begin(), other.str().end());
  } else if (type() == ColumnType::int64 && other.type() == ColumnType::int64) {
    i64().insert(i64().end(), other.i64().begin(), other.i64().end());
  } else if (type() == ColumnType::float64 &&
             other.type() == ColumnType::float64) {  // in place: appends add up linearly
    f64().insert(f64().end(), other.f64().begin(), other.f64().end());
  } else {
    std::vector<double> merged = to_double();
    const std::vector<double> more = other.to_double();
    merged.insert(merged.end(), more.begin(), more.end());
    data_ = std::move(merged);
  }
}

Column Column::take(const std::vector<std::size_t>& rows) const {
  return std::visit(
      [&](const auto& v) {
        std::decay_t<decltype(v)> out;
        out.reserve(rows.size());
        for (const std::size_t i : rows) {
          PERFIT_ASSERT(i < v.size(), "row index past the column's end");
          out.push_back(v[i]);
        }
        return Column(name_, Storage(std::move(out)));
      },
      data_);
}

void Column::filter(const std::vector<bool>& keep) {
  PERFIT_ASSERT(keep.size() == size(), "mask length differs from column length");
  std::visit(
      [&](auto& v) {
        std::size_t out = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (!keep[i]) continue;
          if (out != i) v[out] = std::move(v[i]);  // self-move would empty a string
          ++out;
        }
        v.resize(out);
      },
      data_);
}

}  // namespace perfit::data
