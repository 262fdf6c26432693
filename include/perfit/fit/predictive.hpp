// Prediction intervals for what a run will measure, not only for the expected time. Three
// parts, each in log space (times are positive and errors relative):
//   noise:     the residuals' spread, sqrt(sum ln(meas/pred)^2 / (rows - params)): run-to-run
//              noise and the model's misfit on the measured range;
//   constants: the spread of ln(prediction) over the bootstrap refits (with --bootstrap);
//   choice:    select's validation, rms ln(pred/meas) of the chosen procedure on the scales it
//              predicted from smaller ones (or of the last one, when larger), one dof per held-out
//              scale: the error of extrapolating one step with this choice, noise, constants and
//              model bias included.
// The choice part follows the distance: 0 inside the measured range, where the data speak for
// themselves; beyond it, with d the distance in steps of the scale it was measured at (ln of the
// farthest factor's ratio to its measured range over choice_step_log), choice * d^growth, so one
// step out it is what the held-out folds measured (their growth with distance: select/winner.cpp).
// Without bootstrap refits, the constants' part is the noise times sqrt(constants / rows).
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
  std::string choice_how;            // e.g. "forward:p" (select's split)
  std::size_t bootstrap_refits = 0;  // 0: no constants part
  // One step of the scale the choice part was measured at, ln(x_max / x_below), and its growth
  // with the distance in steps; NaN (older results): the choice part applies at every distance.
  double choice_step_log = std::numeric_limits<double>::quiet_NaN();
  double choice_growth = std::numeric_limits<double>::quiet_NaN();
  // The rows behind the noise estimate; with its dof, the constants fitted (k = rows - dof).
  // Without bootstrap refits the constants part is approximated by noise * sqrt(k / rows), the
  // mean leverage of a least-squares fit. 0: unknown, no approximation.
  std::size_t rows = 0;
};

struct PredictiveInterval {
  bool available = false;
  Eigen::VectorXd lo, hi;
  std::string contains;  // which parts, in words (or why there is none)
};

// constants_log_sd: per row, the sd of ln(prediction) over the refits (empty: none).
// beyond_log: per row, ln of how far its farthest factor lies outside the measured range (0
// inside; empty: unknown, the choice part applies at every distance).
PredictiveInterval predictive_interval(const Eigen::VectorXd& pred,
                                       const Eigen::VectorXd& constants_log_sd,
                                       const SpreadParts& parts, double level,
                                       const Eigen::VectorXd& beyond_log = {});

// The choice part at ln-distance beyond_log from the measured range (see above).
double choice_at(const SpreadParts& parts, double beyond_log);

// Student's t quantile (dof >= 1; dof 1 and 2 exact, else a Cornish-Fisher expansion of the
// normal quantile, within 1e-3 for dof >= 3 at the levels used).
double t_quantile(double p, double dof);

// Per row of pred, the sd of ln(prediction) over bootstrap refits' predictions (rows x refits).
Eigen::VectorXd log_spread(const Eigen::MatrixXd& refit_predictions);

}  // namespace perfit::fit
