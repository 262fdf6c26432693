// How well predictions match measurements, in the terms performance modellers report.
#pragma once

#include <Eigen/Core>

namespace perfit::model {

struct FitMetrics {
  double mape = 0.0;  // mean |pred-meas|/meas, in percent
  double rmse = 0.0;  // sqrt(mean (pred-meas)^2), in the target's unit
  double r2 = 0.0;    // 1 - SS_res/SS_tot
  double gmae = 0.0;  // geometric mean of |relative error|: exp(mean ln(|e| + 4e-4)), percent
  double max_rel_err = 0.0;  // max |pred-meas|/meas, percent
};

FitMetrics compute_metrics(const Eigen::VectorXd& pred, const Eigen::VectorXd& meas);

// The same from row slices held by several ranks: partial sums that add up across slices
// (max_rel_err combines with max), then metrics_from_sums on the totals.
struct MetricSums {
  double n = 0, sum_rel = 0, sum_log = 0, sum_sq = 0, sum_meas = 0, sum_meas2 = 0;
  double sum_log_ratio_sq = 0;  // sum of ln(pred/meas)^2: the noise a prediction interval needs
  double max_rel = 0;
  static constexpr int kSummed = 7;  // the fields before max_rel, in order
};
MetricSums metric_sums(const Eigen::VectorXd& pred, const Eigen::VectorXd& meas);
FitMetrics metrics_from_sums(const MetricSums& s);

}  // namespace perfit::model
