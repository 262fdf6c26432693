// How sure are the constants? B refits of the model on rows resampled with replacement (by
// configuration when configurations repeat, so repeated runs of one configuration move
// together; else by row), each a serial fit through the engine started from the fit's best,
// spread over the ranks (fit/spread.hpp). Percentile intervals per constant; a prediction's
// interval is the percentile interval of the replicates' predictions (cmd predict, recommend).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "perfit/fit/engine.hpp"

namespace perfit::fit {

// Collective over layout.world. Rows sharded over an island are gathered first. Replicate b
// draws from Rng::derive(seed, b): the same seed gives the same replicates on any number of
// ranks. A replicate whose fit fails, or that has not started when `interrupted` turns true,
// is left out (a warning says how many).
BootstrapResult bootstrap(const FitProblem& p, const de::FitOptions& options,
                          const Eigen::VectorXd& best_unit, const island::IslandLayout& layout,
                          const std::function<bool()>& interrupted);

// Per row of ev's table, the percentile interval of the replicates' predictions (replicates[k][b]:
// param k of refit b, as in result files): the uncertainty of the expected time that comes from
// the constants, not one run's noise. Memory: rows x refits doubles.
struct PredictionInterval {
  Eigen::VectorXd lo, hi;
};
PredictionInterval prediction_interval(const model::Evaluator& ev,
                                       const std::vector<std::vector<double>>& replicates,
                                       double ci);
// The replicates' predictions, rows x refits.
Eigen::MatrixXd replicate_predictions(const model::Evaluator& ev,
                                      const std::vector<std::vector<double>>& replicates);

// The (1-ci)/2 and (1+ci)/2 percentiles of values (linear interpolation between order
// statistics). Precondition: values not empty, 0 < ci < 1.
std::pair<double, double> percentile_interval(std::vector<double> values, double ci);

}  // namespace perfit::fit
