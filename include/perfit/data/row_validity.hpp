// Rows a fit cannot use: a NaN or inf in a column it reads (`perfit import` turns empty
// numeric cells into NaN). Counted per column so the message can name each one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

struct RowValidity {
  std::vector<std::string> columns;  // the numeric columns checked
  std::vector<std::size_t> invalid;  // NaN/inf rows per column
  std::vector<bool> keep;            // rows with every checked value finite
  std::size_t rows_invalid = 0;      // rows with at least one
};

// Checks the named numeric columns of t (string columns and absent names are skipped).
RowValidity check_rows(const MeasurementTable& t, const std::vector<std::string>& columns);

// "column 'p': 3 rows, column 'b': 1 row" for the columns with invalid rows.
std::string describe_invalid(const RowValidity& v);

}  // namespace perfit::data
