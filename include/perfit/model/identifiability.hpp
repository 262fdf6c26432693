// Which params the data can pin down. Near the fitted point, the relative-residual Jacobian
// J (rows x params, in the unit cube of the bounds) tells it: a param whose column of J is
// zero has no effect on any prediction, and params along a null direction of J'J trade off
// against each other. Both happen when a factor the model needs to vary is constant in the
// set, or when there are fewer distinct configurations than params.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "perfit/core/column_split.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::model {

// Distinct configurations are counted up to this many (per rank's slice).
inline constexpr std::size_t kDistinctCap = 4096;

struct Identifiability {
  // Of the model's factors, counted up to kDistinctCap (a sum over slices when sharded).
  std::size_t distinct_configurations = 0;
  std::vector<bool> identifiable;     // per param
  std::vector<std::string> warnings;  // one line each, naming params and the cause
};

// Sums n doubles in place across the ranks sharing the rows (identity when serial).
using Reducer = std::function<void(double* data, std::size_t n)>;

// params: the fitted values. Every rank sharing the rows must call it (reduce is collective);
// or every process holding every row, sharing the Jacobian's columns (then no reduce).
Identifiability check_identifiability(const Evaluator& ev, const Eigen::VectorXd& params,
                                      const Reducer& reduce = {}, const ColumnSplit& columns = {});

}  // namespace perfit::model
