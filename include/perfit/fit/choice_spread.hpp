// The extrapolation part of a prediction interval as measured (fit/held_out.hpp), kept with a
// fit's result (io::ResultFile::choice_*) and read by fit/predictive.hpp.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

namespace perfit::fit {

// What is known of the error of extrapolating with a model or a choice of model
// (io::ResultFile::choice_*, fit/predictive.hpp): a log spread, its degrees of freedom, and
// what it is in words. dof 0: nothing known.
struct ChoiceSpread {
  double log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t dof = 0;
  std::string how;
  // The distance log_sd was measured at: ln(largest / second largest) of the scale column, one
  // step; and how the error grows with the distance d in such steps, log_sd * d^growth
  // (fit/predictive.hpp). NaN: unknown (older results: log_sd everywhere).
  double step_log = std::numeric_limits<double>::quiet_NaN();
  double growth = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace perfit::fit
