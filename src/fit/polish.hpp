// The polish, private to the engine: from the search's best, a bounded Newton method on the
// projected cost (few searched params) or Levenberg-Marquardt (model/separable.hpp, de/), on
// island 0 (its ranks share the rows) or, where every island is one rank holding every row, on
// every rank with the Jacobian's columns shared among them (core/column_split.hpp).
#pragma once

#include "fit_objective.hpp"
#include "perfit/core/column_split.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/island/island_model.hpp"

namespace perfit::fit::detail {

// A Jacobian of at least this many columns is worth sharing among ranks.
inline constexpr std::size_t kMinSplitColumns = 16;

// Islands of one rank each and a Jacobian of `columns` >= kMinSplitColumns: its columns shared
// among every rank (an allreduce over the world); otherwise no split.
ColumnSplit world_columns(const island::IslandLayout& L, std::size_t columns);

// Lowers r.cost and moves r.unit when the polish finds better; every rank ends with rank 0's
// answer. Collective over the world.
void polish(FitReport& r, const model::Evaluator& ev, FitObjective& objective,
            const model::Reducer& sum, double weight, const island::IslandLayout& L);

}  // namespace perfit::fit::detail
