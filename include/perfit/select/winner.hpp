// The winner of a selection as a fit job: the same job as `perfit fit`, on every row, with what
// the selection measured of the uncertainty of the choice. `perfit select --out FILE` writes it
// as a result file; a selection over many sets keeps each in the selection store.
#pragma once

#include "perfit/job/fit_job.hpp"
#include "perfit/select/select_set.hpp"

namespace perfit::select {

// The winner's errors where the selection's validation predicted held-out rows, or (two
// scales) the candidates' disagreement; empty when in-sample.
ChoiceSpread choice_spread(const Selection& s);

// The job that fits s.ranked.front() on every row of cfg's set (cfg.out: where it writes).
job::FitJob winner_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s);
// The same job for the k-th of the ranking (0: the winner, without the choice's spread).
job::FitJob candidate_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s,
                          std::size_t k);
// Every candidate, best first, the others fitted on every row here (serially), for a result's
// /candidates: a report draws each one's curve. The winner's entry gets its constants from the
// winner's own fit (job::FitJob::candidates); a candidate whose fit fails has none.
std::vector<io::CandidateFit> candidate_fits(const SelectArgs& a, const fit::RunConfig& cfg,
                                             const Selection& s);

}  // namespace perfit::select
