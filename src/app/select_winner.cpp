#include "select_winner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/factor_binding.hpp"
#include "select_naive.hpp"
#include "select_search.hpp"

namespace perfit::app {

namespace {

// The winner's errors where it predicted held-out rows, rms ln(pred/meas), or that of the last
// fold when larger (an extrapolation's error grows with the distance; the last fold is the
// step most like the next one), with one degree of freedom per fold (repetitions of a scale
// share its error): what a prediction interval needs to hold the uncertainty of the choice
// (fit/predictive.hpp). Measured in bench/extrapolation_bench.py: with rows as the dof and the
// pooled rms alone, 71% of the 90% intervals covered; with these, 84%.
ChoiceSpread held_out_spread(const Candidate& best, const std::string& split_text) {
  const bool any_failed = std::any_of(best.fits.begin(), best.fits.end(), [](const fit::FoldFit& f) { return f.failed; });
  const double pooled = held_out_log_rms(best);
  if (any_failed || !std::isfinite(pooled)) return {};
  const auto& f = best.fits.back();
  const double last = std::sqrt((f.predicted.array() / f.measured.array()).log().square().mean());
  ChoiceSpread out{std::max(pooled, last), best.fits.size(),
                   "its errors predicting " + std::to_string(best.fits.size()) + " held-out scale(s), split " + split_text};
  if (std::isfinite(best.choice_gap)) {
    out.log_sd = std::hypot(out.log_sd, best.choice_gap);
    out.how += "; and how far Amdahl's law, which it was chosen over, departs one step beyond";
  }
  return out;
}

}  // namespace

ChoiceSpread choice_spread(const Selection& s) {
  if (s.few_scales) return disagreement_spread(s.ranked, *s.set.rows, s.split.column);
  return s.folds.empty() ? ChoiceSpread{} : held_out_spread(s.ranked.front(), s.split.text());
}

FitJob winner_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s) {
  FitJob job = candidate_job(a, cfg, s, 0);
  const ChoiceSpread spread = choice_spread(s);
  job.choice_log_sd = spread.log_sd;
  job.choice_dof = spread.dof;
  job.choice_how = spread.how;
  return job;
}

std::vector<io::CandidateFit> candidate_fits(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s) {
  std::vector<io::CandidateFit> out;
  for (std::size_t k = 0; k < s.ranked.size(); ++k) {
    const Candidate& c = s.ranked[k];
    io::CandidateFit f{k + 1, c.model->spec().name, c.word, c.score, c.pooled.failed ? NAN : c.pooled.metrics.mape, "", {}};
    if (k > 0 && std::isfinite(c.score)) {  // the winner's constants are the result's own
      FitJob job = candidate_job(a, cfg, s, k);
      job.write = false;
      job.keep_rows = false;
      try {
        const FitJobOutcome done = run_fit_job(std::move(job), MPI_COMM_NULL);
        if (done.result) {
          f.model_yaml = done.result->model_yaml;
          for (const auto& p : done.result->params) f.params.push_back(p.value);
        }
      } catch (const Error& e) {  // listed without a curve; the ranking already holds its score
        spdlog::debug("select: candidate '{}' on every row: {}", c.word, e.what());
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

FitJob candidate_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s, std::size_t k) {
  const Candidate& best = s.ranked.at(k);
  const AnalysisSet& set = s.set;
  FitJob job;
  job.cfg = cfg;
  job.cfg.model = best.word;
  if (best.naive) {  // computed from every row: constants only, nothing to fit
    job.model = naive_spec_of(*best.naive, best.search_columns.front(), *set.rows);
    job.cfg.model = job.model->name;
    job.cfg.factors.clear();
  } else if (!best.searched()) {
    job.cfg.factors = model::to_text(model::bindings_for(io::load_model(best.word), model::parse_factor_bindings(cfg.factors)));
  } else {  // the hypothesis found on every row, its coefficients fitted as the search fits them
    model::PmnfHypothesis found;
    job.model = best.found_spec ? *best.found_spec : searched_spec(best.search_columns, *set.rows, a.search, found);
    job.cfg.model = job.model->name;
    job.cfg.factors.clear();
    // Least squares, as Extra-P's (on the point means: the same when every point has as many
    // runs): a relative-error refit moved the coefficients off the search's, and the
    // prediction at twice the largest p by 6.5% on Extra-P's one_parameter_6 met3.
    job.cfg.cost.residual = model::Residual::sq;
    job.cfg.cost.lambda = 0.0;
    job.cfg.cost.lambda_auto = false;
  }
  job.cfg.progress_every = 0;
  if (!a.config.empty()) job.inputs.push_back(a.config);
  job.force = a.force;
  job.verbose = false;
  return job;
}


}  // namespace perfit::app
