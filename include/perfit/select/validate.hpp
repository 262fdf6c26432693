// One `perfit validate` run: the model bound to the set, its folds, each fold's fit through the
// engine (spread over comm's ranks) and the pooled held-out metrics; as JSON for --json and
// for the Python package's perfit.validate.
#pragma once

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "perfit/job/analysis_set.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"

namespace perfit::select {

struct Validation {
  data::SplitSpec split;
  std::shared_ptr<const model::Model> model;
  job::AnalysisSet set;
  std::vector<fit::FoldFit> fits;
  fit::Pooled pooled;
};

// `agreed` runs the set-up on every rank that must agree (or just runs it).
// Throws: ConfigError / DataError for bad options or data, and DataError when a fold's fit fails.
Validation run_validation(const fit::RunConfig& c, const std::string& split,
                          const std::function<void(const std::function<void()>&)>& agreed, MPI_Comm comm,
                          const job::SetSource& source = {});

nlohmann::ordered_json validation_json(const Validation& v, const fit::RunConfig& c);

}  // namespace perfit::select
