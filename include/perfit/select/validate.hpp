// One `perfit validate` run: the model bound to the set, its folds, each fold's fit through the
// engine (spread over comm's ranks) and the pooled held-out metrics; as JSON for --json and
// for the Python package's perfit.validate.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/job/analysis_set.hpp"
#include "perfit/job/joint_fit.hpp"

namespace perfit::select {

struct Validation {
  data::SplitSpec split;
  std::shared_ptr<const model::Model>
      model;             // a joint fit's: over the groups (c1__k: group k's c1)
  job::JointFit joint;   // cfg.by: the groups; empty: one set
  job::AnalysisSet set;  // a joint fit's rows carry the group indicators
  std::vector<fit::FoldFit> fits;
  fit::Pooled pooled;
};

// `agreed` runs the set-up on every rank that must agree (or just runs it). With cfg.by each fold
// is a joint fit of the groups on its training rows, its pooled strengths chosen there.
// Throws: ConfigError / DataError for bad options or data (a joint fit's group split that gives
// the held-out group none of its own runs), and DataError when a fold's fit fails.
Validation run_validation(const fit::RunConfig& c, const std::string& split,
                          const std::function<void(const std::function<void()>&)>& agreed,
                          MPI_Comm comm, const job::SetSource& source = {});

nlohmann::ordered_json validation_json(const Validation& v, const fit::RunConfig& c);

}  // namespace perfit::select
