#include "tables.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "perfit/core/error.hpp"

namespace py = pybind11;

namespace perfit::python {

namespace {

template <class T>
std::vector<T> copy_values(const py::array& a) {
  const auto typed = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  const T* p = typed.data();
  return std::vector<T>(p, p + typed.size());
}

std::vector<std::string> text_values(const py::array& a) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(a.size()));
  for (const py::handle v : a) out.push_back(py::str(v));
  return out;
}

// The array's values as a column; the dtype's kind says which (NumPy's one-letter codes).
data::Column column_of(const std::string& name, const py::array& a, const std::string& where) {
  if (a.ndim() != 1) {
    throw DataError(where + " column '" + name + "' has " + std::to_string(a.ndim()) +
                    " dimensions, expected 1");
  }
  switch (a.dtype().kind()) {
    case 'f':
      return data::Column(name, copy_values<double>(a));
    case 'i':
    case 'u':
    case 'b':
      return data::Column(name, copy_values<std::int64_t>(a));
    case 'O':
    case 'U':
    case 'S':
      return data::Column(name, text_values(a));
    default:
      throw DataError(where + " column '" + name + "' has dtype " +
                      std::string(py::str(a.dtype())) +
                      ", expected numbers (float, int, bool) or text");
  }
}

template <class T>
py::array_t<T> owning_array(std::vector<T>&& v) {
  auto* held = new std::vector<T>(std::move(v));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(held->size())},
                        {static_cast<py::ssize_t>(sizeof(T))}, held->data(), owner);
}

}  // namespace

data::MeasurementTable table_from_columns(const py::dict& columns, const std::string& where) {
  data::MeasurementTable t;
  std::size_t rows = 0;
  bool first = true;
  for (const auto& [key, value] : columns) {
    const std::string name = py::str(key);
    data::Column c = column_of(name, py::array::ensure(value), where);
    if (!first && c.size() != rows) {
      throw DataError(where + " column '" + name + "' has " + std::to_string(c.size()) +
                      " rows, the others " + std::to_string(rows));
    }
    rows = c.size();
    first = false;
    t.add_column(std::move(c));
  }
  return t;
}

py::dict columns_to_python(data::MeasurementTable&& table) {
  py::dict out;
  for (auto& c : table.columns()) {
    switch (c.type()) {
      case data::ColumnType::float64:
        out[py::str(c.name())] = owning_array(std::move(c.f64()));
        break;
      case data::ColumnType::int64:
        out[py::str(c.name())] = owning_array(std::move(c.i64()));
        break;
      case data::ColumnType::string:
        out[py::str(c.name())] = py::cast(c.str());
        break;
    }
  }
  return out;
}

}  // namespace perfit::python
