// Fitting a model's constants to a measurement set: differential evolution over the unit cube
// of the params (log-aware, so constants spanning decades are searched evenly), then a
// Levenberg-Marquardt polish of the best individual that is kept only if it lowers the cost.
// Pure library: no MPI, no HDF5; the caller loads the data and writes the result.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include "perfit/de/optimizer.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/identifiability.hpp"
#include "perfit/model/metrics.hpp"

namespace perfit::de {

struct FitOptions {
  DeOptions de;
  bool polish = true;
  std::size_t progress_every = 25;  // generations between progress calls; 0: none
};

struct FitResult {
  Eigen::VectorXd params;  // in the params' own units
  Eigen::VectorXd unit;    // in the unit cube
  std::vector<bool> at_bound;  // within 1e-6 of a bound (in the cube): widen it?
  double cost = 0.0;
  double cost_before_polish = 0.0;
  bool polish_improved = false;
  int polish_iterations = 0;
  DeSummary de;
  std::vector<double> history;  // best cost per generation
  model::FitMetrics metrics;
  model::Identifiability identifiability;  // which params the data determines
  double seconds = 0.0;
  double evals_per_second = 0.0;  // candidate evaluations (each over all rows) per second
};

// Called with (generation, evaluations, best cost, seconds).
using FitProgress = std::function<void(std::size_t, std::size_t, double, double)>;

// Throws: ConfigError from invalid options.
FitResult fit_model(const model::Evaluator& ev, const FitOptions& options,
                    const FitProgress& progress = {});

}  // namespace perfit::de
