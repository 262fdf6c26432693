// The winner of a selection as a fit job: the same job as `perfit fit`, on every row, with what
// the selection measured of the uncertainty of the choice. `perfit select --out FILE` writes it
// as a result file; a selection over many sets keeps each in the selection store.
#pragma once

#include "fit_job.hpp"
#include "select_core.hpp"

namespace perfit::app {

// The winner's errors where the selection's validation predicted held-out rows, or (two
// scales) the candidates' disagreement; empty when in-sample.
ChoiceSpread choice_spread(const Selection& s);

// The job that fits s.ranked.front() on every row of cfg's set (cfg.out: where it writes).
FitJob winner_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s);

}  // namespace perfit::app
