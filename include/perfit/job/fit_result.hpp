// A fit's result file from what the job knew of its run and what the engine reported: the one
// place that maps fit::FitReport onto io::ResultFile (the job then adds what only it knows:
// ranges, kept rows, a selection's candidates and choice).
#pragma once

#include <cstddef>
#include <string>

#include "perfit/fit/engine.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

// What the result records of the run besides the engine's report.
struct FitRun {
  const fit::RunConfig& cfg;
  const model::ModelSpec& spec;  // as fitted (a joint fit's: over its groups)
  const Groups& groups;
  std::string target, checksum, unit;
  std::size_t rows = 0, dropped = 0;  // fitted, and dropped as NaN/inf (drop_invalid)
  int ranks = 1;
};

io::ResultFile make_result(const FitRun& run, const fit::FitReport& fr);

}  // namespace perfit::job
