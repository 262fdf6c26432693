#include "perfit/fit/predictive.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "perfit/core/text.hpp"

namespace perfit::fit {

namespace {

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

double t_quantile(double p, double dof) {
  if (dof <= 1.0) return std::tan(std::numbers::pi * (p - 0.5));
  if (dof <= 2.0) return (2 * p - 1) / std::sqrt(2 * p * (1 - p));
  const double z = normal_quantile(p), z2 = z * z, n = dof;
  return z + z * (z2 + 1) / (4 * n) + z * ((5 * z2 + 16) * z2 + 3) / (96 * n * n) +
         z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * n * n * n) +
         z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * n * n * n * n);
}

Eigen::VectorXd log_spread(const Eigen::MatrixXd& refit_predictions) {
  Eigen::VectorXd out(refit_predictions.rows());
  for (Eigen::Index i = 0; i < refit_predictions.rows(); ++i) {
    const Eigen::ArrayXd l = refit_predictions.row(i).array().log();
    const double mean = l.mean();
    out(i) = l.size() > 1 ? std::sqrt((l - mean).square().sum() / static_cast<double>(l.size() - 1))
                          : 0.0;
  }
  return out;
}

double choice_at(const SpreadParts& parts, double beyond_log) {
  const bool by_distance = std::isfinite(parts.choice_step_log) && parts.choice_step_log > 0.0 &&
                           std::isfinite(parts.choice_growth);
  if (!by_distance || std::isnan(beyond_log)) return parts.choice_log_sd;
  if (!(beyond_log > 0.0)) return 0.0;
  return parts.choice_log_sd * std::pow(beyond_log / parts.choice_step_log, parts.choice_growth);
}

PredictiveInterval predictive_interval(const Eigen::VectorXd& pred,
                                       const Eigen::VectorXd& constants_log_sd,
                                       const SpreadParts& parts, double level,
                                       const Eigen::VectorXd& beyond_log) {
  PredictiveInterval out;
  const bool noise = parts.noise_dof > 0 && std::isfinite(parts.noise_log_sd);
  const bool choice = parts.choice_dof > 0 && std::isfinite(parts.choice_log_sd);
  const bool constants = constants_log_sd.size() == pred.size() && parts.bootstrap_refits > 0;
  if (!noise && !choice) {
    out.contains =
        "no interval: too little data to estimate the noise (as many rows as constants) and no "
        "held-out scale to measure the error of extrapolating";
    return out;
  }
  out.available = true;
  out.lo.resize(pred.size());
  out.hi.resize(pred.size());
  const double p = 0.5 + 0.5 * level;
  const bool leverage = !constants && noise && parts.rows > parts.noise_dof;
  const double mean_leverage =
      leverage ? static_cast<double>(parts.rows - parts.noise_dof) / static_cast<double>(parts.rows)
               : 0.0;
  bool choice_set = false;
  for (Eigen::Index i = 0; i < pred.size(); ++i) {
    const double c =
        constants ? constants_log_sd(i) : parts.noise_log_sd * std::sqrt(mean_leverage);
    const double model = noise ? std::sqrt(parts.noise_log_sd * parts.noise_log_sd + c * c) : 0.0;
    const double far =
        beyond_log.size() == pred.size() ? beyond_log(i) : std::numeric_limits<double>::quiet_NaN();
    const double chosen = choice ? choice_at(parts, far) : 0.0;
    const bool by_choice = choice && (!noise || chosen > model);
    choice_set = choice_set || by_choice;
    const double s = by_choice ? chosen : model;
    const double t =
        t_quantile(p, static_cast<double>(by_choice ? parts.choice_dof : parts.noise_dof));
    out.lo(i) = pred(i) * std::exp(-t * s);
    out.hi(i) = pred(i) * std::exp(t * s);
  }
  std::string words;
  if (noise)
    words = "run-to-run noise and misfit (" + std::to_string(parts.noise_dof) + " residual dof)";
  else
    words = "no noise estimate (as many rows as constants)";
  words += constants
               ? ", the constants (" + std::to_string(parts.bootstrap_refits) + " bootstrap refits)"
           : leverage ? ", the constants approximated by the noise x sqrt(constants / rows) "
                        "(--bootstrap measures them)"
                      : ", not the constants' uncertainty (fit with --bootstrap for it)";
  if (choice) {
    const bool by_distance = beyond_log.size() == pred.size() &&
                             std::isfinite(choice_at(parts, 1.0)) && choice_at(parts, 0.0) == 0.0;
    // A plain fit's own forward check measures its model's extrapolation error, not a choice.
    const bool own = parts.choice_how.starts_with("forward check");
    words += std::string(own ? ", the extrapolation error (" : ", the model choice (") +
             parts.choice_how +
             (choice_set ? "; the widest part, used" : "; narrower than the others");
    if (by_distance) {
      words += "; none inside the measured range, beyond it growing as distance^" +
               format_g(parts.choice_growth, 2) + " in steps of x" +
               format_g(std::exp(parts.choice_step_log), 3);
    }
    words += ")";
  } else {
    words += ", not the model choice nor the extrapolation error (" +
             (parts.choice_how.empty()
                  ? std::string("not a result of select, or nothing to measure it on")
                  : parts.choice_how) +
             ")";
  }
  out.contains = words;
  return out;
}

}  // namespace perfit::fit
