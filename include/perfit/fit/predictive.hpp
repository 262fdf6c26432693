// Prediction intervals for what a run will measure, not only for the expected time. Three
// parts, each in log space (times are positive and errors relative):
//   noise:     the residuals' spread, sqrt(sum ln(meas/pred)^2 / (rows - params)): run-to-run
//              noise and the model's misfit on the measured range;
//   constants: the spread of ln(prediction) over the bootstrap refits (with --bootstrap);
//   choice:    select's validation, rms ln(pred/meas) of the chosen procedure on the scales it
//              predicted from smaller ones (or of the last one, when larger), one dof per held-out
//              scale: the error of extrapolating one step with this choice, noise, constants and
//              model bias included.
// Without a choice part: s = sqrt(noise^2 + constants^2). With one: the larger of that and the
// choice part (which already holds the other two). The interval is pred * exp(+-t * s), t the
// Student quantile at the dof of the part that set s. No noise and no choice estimate (as many
// rows as constants, no held-out scale): no interval, and the reason.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <limits>
#include <string>

namespace perfit::fit {

struct SpreadParts {
  double noise_log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t noise_dof = 0;
  double choice_log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t choice_dof = 0;
  std::string choice_how;        // e.g. "forward:p" (select's split)
  std::size_t bootstrap_refits = 0;  // 0: no constants part
};

struct PredictiveInterval {
  bool available = false;
  Eigen::VectorXd lo, hi;
  std::string contains;  // which parts, in words (or why there is none)
};

// constants_log_sd: per row, the sd of ln(prediction) over the refits (empty: none).
PredictiveInterval predictive_interval(const Eigen::VectorXd& pred, const Eigen::VectorXd& constants_log_sd,
                                       const SpreadParts& parts, double level);

// Student's t quantile (dof >= 1; dof 1 and 2 exact, else a Cornish-Fisher expansion of the
// normal quantile, within 1e-3 for dof >= 3 at the levels used).
double t_quantile(double p, double dof);

// Per row of pred, the sd of ln(prediction) over bootstrap refits' predictions (rows x refits).
Eigen::VectorXd log_spread(const Eigen::MatrixXd& refit_predictions);

}  // namespace perfit::fit
