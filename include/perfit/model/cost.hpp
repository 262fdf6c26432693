// The regularised cost that the fit minimises (Kavarakuntla et al. 2024, sec. on fitting):
//   cost(x) = mean_i w_i*res(pred_i(x), meas_i) / mean_i w_i  +  lambda * penalty(x)
// with the penalty on params normalised to [0,1] by their bounds (log-aware), so that lambda
// means the same whatever the units of each constant.
#pragma once

#include <cmath>
#include <string>

#include "perfit/core/option_table.hpp"

namespace perfit::model {

enum class Residual {
  rel_sq,  // ((pred - meas)/meas)^2: every configuration counts alike (default)
  sq_log,  // (log pred - log meas)^2: symmetric in over/under-prediction
  ape,     // |pred - meas|/meas: robust to a few bad measurements
  sq       // (pred - meas)^2: plain least squares, dominated by the slowest runs
};
enum class Penalty { none, l1, l2 };

// One row's residual res(pred, meas), the definition of each kind. The vectorised paths (the
// evaluator's kernels, compression, the LM residual vector) are written for speed and tested
// against this one.
inline double residual(Residual kind, double predicted, double measured) {
  switch (kind) {
    case Residual::rel_sq:
      return (predicted / measured - 1.0) * (predicted / measured - 1.0);
    case Residual::sq_log:
      return std::log(predicted / measured) * std::log(predicted / measured);
    case Residual::ape:
      return std::fabs(predicted / measured - 1.0);
    case Residual::sq:
      return (predicted - measured) * (predicted - measured);
  }
  return 0.0;
}

Residual parse_residual(const std::string& name);  // Throws: ConfigError listing the choices
Penalty parse_penalty(const std::string& name);
const char* to_string(Residual r);
const char* to_string(Penalty p);

struct CostOptions {
  Residual residual = Residual::rel_sq;
  std::string weight_column;  // empty: all rows weigh 1
  Penalty penalty = Penalty::l2;
  double lambda = 0.0;  // 0: no regularisation
  // lambda: auto. The fit chooses lambda by cross-validation on its rows (fit/lambda_choice.hpp)
  // and sets `lambda`; an evaluator never sees this flag set.
  bool lambda_auto = false;
  // Throws: ConfigError for a negative or non-finite lambda.
  void validate() const;
};

// Every CostOptions field, keys without the "cost." prefix.
const OptionTable<CostOptions>& cost_option_table();

}  // namespace perfit::model
