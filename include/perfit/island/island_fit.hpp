// `perfit fit` under mpiexec: the island model on a model's cost. Each rank holds the rows of
// its slice (ranks_per_island > 1) or all rows; costs of one population are allreduced within
// the island. The global best is polished once by island 0 (its ranks sharing the rows) and
// its metrics computed over all rows.
#pragma once

#include "perfit/de/model_fit.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::island {

struct IslandFitResult {
  de::FitResult fit;       // params, cost, metrics, history (global best per epoch)
  IslandSummary islands;
};

// Collective over layout.world. `ev` evaluates this rank's rows.
IslandFitResult fit_on_islands(const IslandLayout& layout, const model::Evaluator& ev,
                               const de::FitOptions& options, const IslandOptions& islands,
                               const std::function<void(const EpochReport&)>& on_epoch = {});

}  // namespace perfit::island
