#include "perfit/select/winner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/held_out.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/search.hpp"

namespace perfit::select {

namespace {

// The winner's error on the last held-out scale, grown as it grew (fit/held_out.hpp), and, for
// ideal scaling chosen over Amdahl's law, how far Amdahl's law departs one step beyond.
ChoiceSpread held_out_spread(const Candidate& best, const std::string& split_text) {
  ChoiceSpread out =
      fit::last_fold_spread(best.fits, "its errors predicting " + std::to_string(best.fits.size()) +
                                           " held-out scale(s), split " + split_text);
  if (out.dof > 0 && std::isfinite(best.choice_gap)) {
    out.log_sd = std::hypot(out.log_sd, best.choice_gap);
    out.how += "; and how far Amdahl's law, which it was chosen over, departs one step beyond";
  }
  return out;
}

// How the winner's log error grows with the distance beyond its training scales, over the
// split's folds it was fitted on (some may have been dropped); fitted models with at least two
// folds only, else the default.
double distance_growth(const Candidate& best, const Selection& s) {
  if (best.procedure() || best.fits.size() < 2) return fit::kDefaultGrowth;
  std::vector<const data::Fold*> held;  // best.fits' folds, in order
  std::vector<std::size_t> at;          // and each one's place among the split's scales
  for (const auto& f : best.fits) {
    const auto it = std::find_if(s.folds.begin(), s.folds.end(),
                                 [&](const data::Fold& x) { return x.name == f.fold; });
    if (it == s.folds.end()) return fit::kDefaultGrowth;
    held.push_back(&*it);
    at.push_back(static_cast<std::size_t>(it - s.folds.begin()));
  }
  return fit::distance_growth(model::Evaluator(*best.model, *s.set.rows), best.fits, held, at);
}

}  // namespace

ChoiceSpread choice_spread(const Selection& s) {
  ChoiceSpread out;
  if (s.few_scales) {
    out = disagreement_spread(s.ranked, *s.set.rows, s.split.column);
    out.growth = fit::kDefaultGrowth;
  } else if (!s.folds.empty()) {
    out = held_out_spread(s.ranked.front(), s.split.text());
    out.growth = distance_growth(s.ranked.front(), s);
  }
  out.step_log = fit::scale_step_log(*s.set.rows, s.split.column);
  return out;
}

job::FitJob winner_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s) {
  job::FitJob job = candidate_job(a, cfg, s, 0);
  const ChoiceSpread spread = choice_spread(s);
  job.choice_log_sd = spread.log_sd;
  job.choice_dof = spread.dof;
  job.choice_how = spread.how;
  job.choice_step_log = spread.step_log;
  job.choice_growth = spread.growth;
  return job;
}

std::vector<io::CandidateFit> candidate_fits(const SelectArgs& a, const fit::RunConfig& cfg,
                                             const Selection& s) {
  std::vector<io::CandidateFit> out;
  for (std::size_t k = 0; k < s.ranked.size(); ++k) {
    const Candidate& c = s.ranked[k];
    io::CandidateFit f{
        k + 1, c.label(), c.word, c.score, c.pooled.failed ? NAN : c.pooled.metrics.mape, "", {}};
    // The winner's constants are the result's own; a joint candidate's curves would be one per
    // group (the report draws the winner's per group): listed without.
    if (k > 0 && std::isfinite(c.score) && !c.joint) {
      job::FitJob job = candidate_job(a, cfg, s, k);
      job.write = false;
      job.keep_rows = false;
      try {
        const job::FitJobOutcome done = job::run_fit_job(std::move(job), MPI_COMM_NULL);
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

job::FitJob candidate_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s,
                          std::size_t k) {
  const Candidate& best = s.ranked.at(k);
  const job::AnalysisSet& set = s.set;
  job::FitJob job;
  job.cfg = cfg;
  job.cfg.model = best.word;
  if (best.naive) {  // computed from every row: constants only, nothing to fit
    job.model = naive_spec_of(*best.naive, best.search_columns.front(), *set.rows);
    job.constants_estimated = model::naive_estimated_constants(*best.naive);
    job.cfg.model = job.model->name;
    job.cfg.factors.clear();
  } else if (!best.searched()) {
    job.cfg.factors = model::to_text(
        model::bindings_for(io::load_model(best.word), model::parse_factor_bindings(cfg.factors)));
    if (best.joint) {  // the kinds it won with
      job.cfg.shared = join(best.joint->kinds.shared, "");
      job.cfg.per_group = join(best.joint->kinds.per_group, "");
      job.cfg.pooled = join(best.joint->kinds.pooled, "");
    }
  } else {  // the hypothesis found on every row, its coefficients fitted as the search fits them
    model::PmnfHypothesis found;
    job.model = best.found_spec ? *best.found_spec
                                : searched_spec(best.search_columns, *set.rows, a.search, found);
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
  // Rows given in memory: a copy per job, whose fit may drop invalid rows from it.
  if (a.source.given) job.table = std::make_shared<data::MeasurementTable>(*a.source.given);
  if (!a.config.empty()) job.inputs.push_back(a.config);
  job.force = a.force;
  job.verbose = false;
  return job;
}

}  // namespace perfit::select
