// How well predictions match measurements, in the terms performance modellers report.
#pragma once

#include <Eigen/Core>

namespace perfit::model {

struct FitMetrics {
  double mape = 0.0;         // mean |pred-meas|/meas, in percent
  double rmse = 0.0;         // sqrt(mean (pred-meas)^2), in the target's unit
  double r2 = 0.0;           // 1 - SS_res/SS_tot
  double gmae = 0.0;         // geometric mean of |relative error|: exp(mean ln(|e| + 4e-4)), percent
  double max_rel_err = 0.0;  // max |pred-meas|/meas, percent
};

FitMetrics compute_metrics(const Eigen::VectorXd& pred, const Eigen::VectorXd& meas);

}  // namespace perfit::model
