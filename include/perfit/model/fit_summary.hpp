// What a fit found and how its search went, declared once: the engine's report (fit::FitReport)
// and the result file (io::ResultFile) both are a FitSummary, so a result takes these from the
// report in one assignment and a field added here reaches both.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "perfit/model/metrics.hpp"

namespace perfit::model {

struct FitSummary {
  double cost = 0.0, cost_before_polish = 0.0;
  bool polish_improved = false;
  std::size_t generations = 0, evaluations = 0;
  double seconds = 0.0;     // the whole fit
  double de_seconds = 0.0;  // of which the DE
  // Of the DE, this rank's time (rank 0's in a result) in each collective phase
  // (docs/scaling.md): migrants, the stop vote, the allreduce of row-shard costs; the rest is
  // evaluation. 0 in files of older perfits.
  double migration_seconds = 0.0, vote_seconds = 0.0, reduce_seconds = 0.0;
  FitMetrics metrics;
  std::vector<double> history;  // best cost per generation (one island) or per epoch
  // The spread of ln(measured / predicted) over every row, sqrt(sum / dof) with dof = rows -
  // params: run-to-run noise and misfit together (NaN when dof is 0 or unknown).
  double noise_log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t noise_dof = 0;
};

}  // namespace perfit::model
