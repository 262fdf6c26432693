// What a result keeps of its rows, so that it answers on its own (figures, reports, another
// machine): each factor column the model reads, the measured target, the prediction and the
// residual, for every row or, past kKeptRowsMax rows, every k-th row; and where its store is.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

inline constexpr std::size_t kKeptRowsMax = 10000;

struct KeptRows {
  data::MeasurementTable
      rows;                // factor columns, <target>, predicted, residual (measured - predicted)
  std::size_t stride = 1;  // every stride-th row of those fitted
};

// `spec` as fitted (its factors bound to columns), `x` its constants.
KeptRows keep_rows(const model::ModelSpec& spec, const data::MeasurementTable& rows,
                   const std::string& target, const Eigen::VectorXd& x,
                   std::size_t max_rows = kKeptRowsMax);

// The store's path from the directory of the result file `out` ("" without an output or a
// store file), so that a result moved with its store still finds it.
std::string data_from_result(const std::string& data, const std::string& out);

}  // namespace perfit::job
