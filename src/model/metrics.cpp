#include "perfit/model/metrics.hpp"

#include <cmath>

namespace perfit::model {

FitMetrics compute_metrics(const Eigen::VectorXd& pred, const Eigen::VectorXd& meas) {
  FitMetrics m;
  const double n = static_cast<double>(meas.size());
  if (meas.size() == 0) return m;
  const Eigen::ArrayXd rel = ((pred - meas).array() / meas.array()).abs();
  m.mape = 100.0 * rel.mean();
  m.max_rel_err = 100.0 * rel.maxCoeff();
  // 4e-4 keeps exact predictions from sending the log to -inf (the GMAE definition).
  m.gmae = 100.0 * std::exp((rel + 4e-4).log().mean());
  m.rmse = std::sqrt((pred - meas).squaredNorm() / n);
  const double ss_tot = (meas.array() - meas.mean()).square().sum();
  m.r2 = ss_tot > 0 ? 1.0 - (pred - meas).squaredNorm() / ss_tot : 0.0;
  return m;
}

MetricSums metric_sums(const Eigen::VectorXd& pred, const Eigen::VectorXd& meas) {
  MetricSums s;
  const Eigen::ArrayXd rel = ((pred - meas).array() / meas.array()).abs();
  s.n = static_cast<double>(meas.size());
  s.sum_rel = rel.sum();
  s.sum_log = (rel + 4e-4).log().sum();
  s.sum_sq = (pred - meas).squaredNorm();
  s.sum_meas = meas.sum();
  s.sum_meas2 = meas.squaredNorm();
  s.sum_log_ratio_sq = (pred.array() / meas.array()).log().square().sum();
  s.max_rel = meas.size() ? rel.maxCoeff() : 0.0;
  return s;
}

FitMetrics metrics_from_sums(const MetricSums& s) {
  FitMetrics m;
  if (s.n <= 0) return m;
  m.mape = 100.0 * s.sum_rel / s.n;
  m.max_rel_err = 100.0 * s.max_rel;
  m.gmae = 100.0 * std::exp(s.sum_log / s.n);
  m.rmse = std::sqrt(s.sum_sq / s.n);
  const double ss_tot = s.sum_meas2 - s.sum_meas * s.sum_meas / s.n;
  m.r2 = ss_tot > 0 ? 1.0 - s.sum_sq / ss_tot : 0.0;
  return m;
}

}  // namespace perfit::model
