// Columns between Python and perfit: a dict of NumPy arrays (a DataFrame's columns, as the
// package's Python side hands them over) becomes a MeasurementTable with one copy, and a table
// goes back as arrays that own the table's vectors (no copy).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "perfit/data/measurement_table.hpp"

namespace perfit::python {

// Floats stay float64, integers and booleans become int64, text (object, str) becomes a text
// column. `where` names the data in messages ("the DataFrame").
// Throws: DataError for a column of another kind (dates, complex) or of another length.
data::MeasurementTable table_from_columns(const pybind11::dict& columns, const std::string& where);

// {name: numpy array or list of str}, in the table's column order; the table is consumed.
pybind11::dict columns_to_python(data::MeasurementTable&& table);

}  // namespace perfit::python
