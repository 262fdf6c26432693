// lambda: auto. The regularisation weight that predicts held-out rows best, chosen from a grid
// by cross-validation on the fit's own rows: leave-one-scale-out with a rolling origin over the
// scale column (each scale from the third up predicted from the smaller ones), else k-fold over
// configurations. Penalised fits pull weakly determined constants towards their bounds' low
// end; whether that helps is a question the rows answer, not the user (docs/validation.md).
#pragma once

#include <vector>

#include "perfit/fit/engine.hpp"

namespace perfit::fit {

// 0 and 1e-8 .. 1e-1 by decades: the cost is a mean squared relative error (1e-4..1e-2 at
// 1-10% noise) and the penalty a sum of squared unit-cube params (<= n), so the grid spans
// "no effect" to "the penalty dominates".
std::vector<double> lambda_grid();

// Collective over layout.world. Rows sharded over an island's ranks are gathered first (every
// rank then holds the whole set); the grid x folds fits are spread over all ranks.
// Throws: perfit::Error from a fit.
LambdaChoice choose_lambda(const FitProblem& p, const de::FitOptions& options,
                           const island::IslandLayout& layout);

}  // namespace perfit::fit
