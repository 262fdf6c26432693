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

}  // namespace perfit::model
