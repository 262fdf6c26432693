// How far a fitted model misses scales it was not fitted on, for the extrapolation part of its
// prediction intervals (fit/predictive.hpp): measured on forward folds (train below a value of
// the scale column, predict it), by select for its winner and by a plain fit's forward check.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/choice_spread.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/model/compression.hpp"

namespace perfit::fit {

// rms ln(predicted / measured) over a fold's test rows.
double fold_log_rms(const FoldFit& f);

// The last fold's rms ln error, times how much it grew from the fold before when it grew (at
// most 3x), one dof per fold, and `how` beginning with `what`. Nothing known (dof 0) when a
// fold failed or there is none.
ChoiceSpread last_fold_spread(const std::vector<FoldFit>& fits, const std::string& what);

// How the log error grows with the distance beyond a fold's training scales: each fit's
// constants (fits[k], trained for held[k]) also predict every later held-out fold (held[j], at[j]
// - at[k] + 1 steps out), and within a fold ln(e(d) / e(1)) against ln d gives the exponent.
// ev: the model over every row the folds index. kDefaultGrowth without two usable folds;
// clamped to [0, 2].
inline constexpr double kDefaultGrowth = 1.0;
double distance_growth(const model::Evaluator& ev, const std::vector<FoldFit>& fits,
                       const std::vector<const data::Fold*>& held,
                       const std::vector<std::size_t>& at);

// ln(largest / second largest) of a numeric column: one step of the scale; NaN without two
// values > 0 or without the column.
double scale_step_log(const data::MeasurementTable& rows, const std::string& column);

// A plain fit's forward check: refits from its own best (best_unit, in the unit cube), each
// trained below one of the largest values of the scale column (up to 4, from the third value
// up) and predicting it: last_fold_spread of them one step out, distance_growth beyond.
// Where the cost allows (squared residuals, no penalty) the refits train on distinct
// configurations (`fitted`: the fit's own compression of p.rows, else made here) and are judged
// on the rows; else they are fit_folds' (collective over L.world, spread over the ranks).
// Nothing known (dof 0, `how` says why) with fewer than three values of the scale column, or
// more than 64.
ChoiceSpread forward_check(const FitProblem& p, const de::FitOptions& options,
                           const Eigen::VectorXd& best_unit, const island::IslandLayout& L,
                           const model::CompressedRows* fitted = nullptr);

}  // namespace perfit::fit
