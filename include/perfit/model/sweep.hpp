// What a fitted model says along one factor (perfit explain): the predicted time and each
// term's share at every point of a sweep (e.g. workers p = 1..1024), where the dominant term
// changes (e.g. where communication overtakes compute), the point of minimum time, and how
// far the factor can grow at a parallel efficiency above a threshold.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "perfit/model/evaluator.hpp"

namespace perfit::model {

struct Crossover {
  std::string from, to;  // the dominant term before and after
  double at = 0.0;       // where the two terms are equal, interpolated in log(x) between points
};

struct SweepReport {
  std::string factor;
  std::vector<double> x, time;  // the sweep and the predictions
  std::vector<std::string> terms;
  Eigen::MatrixXd share;           // points x terms, each term / time
  std::vector<double> efficiency;  // time(x0)*x0 / (time(x)*x): 1 at the first point
  std::vector<Crossover> crossovers;
  double best_x = 0.0, best_time = 0.0;  // minimum predicted time
  double threshold = 0.5;
  double last_efficient_x = 0.0;  // largest x with efficiency >= threshold (x0 at least)
};

// ev: a prediction-only evaluator over the sweep's rows, in sweep order (factor increasing,
// > 0). Throws: DataError if a prediction is not finite and > 0.
SweepReport analyse_sweep(const Evaluator& ev, const Eigen::VectorXd& params,
                          const std::string& factor, const std::vector<double>& x,
                          double threshold);

// lo, lo*2, lo*4, ... up to hi, and hi itself when it is not on that ladder.
// Throws: ConfigError unless 0 < lo < hi.
std::vector<double> doubling_sweep(double lo, double hi);

}  // namespace perfit::model
