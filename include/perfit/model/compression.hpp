// Exact compression of repeated configurations. Real measurement sets repeat configurations
// (several runs, many iterations per run). For the squared residuals the cost over the rows
// of one configuration is a quadratic in its one prediction, so it equals one weighted row
// plus a constant:
//   rel_sq: sum_i w_i (p/y_i - 1)^2   = W_c (p/Y_c - 1)^2 + K_c,  with A = sum w/y^2,
//           B = sum w/y: Y_c = B/A, W_c = B^2/A, K_c = sum_i w_i (Y_c/y_i - 1)^2
//   sq:     sum_i w_i (p - y_i)^2     = W_c (p - Y_c)^2 + K_c,    W_c = sum w, Y_c = mean_w y
//   sq_log: sum_i w_i (log p - log y_i)^2: the same in log y (Y_c = geometric mean_w)
// The model is then evaluated once per distinct configuration, exactly up to rounding (K_c is
// summed from the rows, never as a difference of large sums). `ape` stays per row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/cost.hpp"

namespace perfit::model {

struct CompressedRows {
  data::MeasurementTable table;  // one row per configuration: the factors, target Y_c, weight W_c
  double offset = 0.0;           // sum of K_c: added to every candidate's residual sum
  double weight_sum = 0.0;       // of the original rows (the cost is normalised by it)
  std::size_t rows = 0, configurations = 0;
};

inline constexpr const char* kCompressedWeight = "__perfit_weight";

// factors: the columns the model reads. Rows are grouped by the exact bits of those values.
// Precondition: cost.residual is not ape; the target and weights are finite (the evaluator's
// checks have passed). row_weights multiply the weight column's (empty: 1).
CompressedRows compress_rows(const data::MeasurementTable& t,
                             const std::vector<std::string>& factors, const CostOptions& cost,
                             const std::vector<double>& row_weights = {});

// Distinct configurations of the factors, without building the table (to decide if it pays).
std::size_t count_configurations(const data::MeasurementTable& t,
                                 const std::vector<std::string>& factors);

}  // namespace perfit::model
