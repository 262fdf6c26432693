#include "perfit/select/winner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/search.hpp"

namespace perfit::select {

namespace {

double fold_log_rms(const fit::FoldFit& f) {
  return std::sqrt((f.predicted.array() / f.measured.array()).log().square().mean());
}

// The winner's rms ln(pred/meas) on the last held-out scale, times how much it grew from the
// scale before when it grew (at most kGrowthCap), with one degree of freedom per held-out scale
// (repetitions of a scale share its error): what a prediction interval needs to hold the
// uncertainty of the choice (fit/predictive.hpp). The last fold is the step most like the next
// one: with the right model the earlier folds, trained on fewer scales, miss by more than the
// next step will; with a model that misses the shape the error grows with the distance, and
// so one step further. Measured in bench/extrapolation_bench.py (500 series per family, two
// seeds): the rms over every fold, or the last when larger, covered comm_ring's next scale
// in 97-98% of its 90% intervals and contention's in 81%; this, 95-96% and 81-82%.
constexpr double kGrowthCap = 3.0;

ChoiceSpread held_out_spread(const Candidate& best, const std::string& split_text) {
  const bool any_failed = std::any_of(best.fits.begin(), best.fits.end(), [](const fit::FoldFit& f) { return f.failed; });
  if (any_failed || best.fits.empty()) return {};
  const std::size_t n = best.fits.size();
  const double last = fold_log_rms(best.fits.back());
  if (!std::isfinite(last)) return {};
  const double before = n > 1 ? fold_log_rms(best.fits[n - 2]) : 0.0;
  const double growth = before > 0.0 ? std::clamp(last / before, 1.0, kGrowthCap) : 1.0;
  ChoiceSpread out{last * growth, n,
                   "its errors predicting " + std::to_string(n) + " held-out scale(s), split " + split_text + ": the last one's"};
  if (growth > 1.0) out.how += ", x" + format_g(growth, 3) + " as it grew from the one before";
  if (std::isfinite(best.choice_gap)) {
    out.log_sd = std::hypot(out.log_sd, best.choice_gap);
    out.how += "; and how far Amdahl's law, which it was chosen over, departs one step beyond";
  }
  return out;
}

// Without a measurement: a wrong exponent's log error grows in proportion to the log distance.
constexpr double kDefaultGrowth = 1.0;
constexpr double kGrowthRange[2] = {0.0, 2.0};

// How the winner's log error grows with the distance beyond its training scales: each fold's
// constants also predict every later held-out scale (d = 2, 3, ... steps out), and within a fold
// ln(e(d) / e(1)) against ln d gives the exponent (within one fold, so that folds trained on
// fewer scales do not pass for distance). Fitted models with at least two folds only; else the
// default. Clamped to kGrowthRange.
double distance_growth(const Candidate& best, const Selection& s) {
  if (best.procedure() || best.fits.size() < 2) return kDefaultGrowth;
  const model::Evaluator ev(*best.model, *s.set.rows);
  const Eigen::VectorXd& y = ev.measured();
  std::vector<const data::Fold*> held;  // best.fits' folds, in order (some may have been dropped)
  std::vector<std::size_t> at;          // and each one's place among the split's scales
  for (const auto& f : best.fits) {
    const auto it = std::find_if(s.folds.begin(), s.folds.end(), [&](const data::Fold& x) { return x.name == f.fold; });
    if (it == s.folds.end()) return kDefaultGrowth;
    held.push_back(&*it);
    at.push_back(static_cast<std::size_t>(it - s.folds.begin()));
  }
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t k = 0; k + 1 < held.size(); ++k) {
    const fit::FoldFit& f = best.fits[k];
    const double e1 = fold_log_rms(f);
    if (f.failed || !(e1 > 0.0) || !f.params.allFinite()) continue;
    const Eigen::VectorXd pred = ev.predict(f.params);
    for (std::size_t j = k + 1; j < held.size(); ++j) {
      double ss = 0.0;
      std::size_t n = 0;
      for (std::size_t i = 0; i < held[j]->test.size(); ++i) {
        if (!held[j]->test[i]) continue;
        const double e = std::log(pred(static_cast<Eigen::Index>(i)) / y(static_cast<Eigen::Index>(i)));
        ss += e * e;
        ++n;
      }
      const double ed = std::sqrt(ss / static_cast<double>(std::max<std::size_t>(n, 1)));
      if (n == 0 || !std::isfinite(ed) || !(ed > 0.0)) continue;
      const double x = std::log(static_cast<double>(at[j] - at[k] + 1));  // steps beyond fold k's training scales
      sxy += x * std::log(ed / e1);
      sxx += x * x;
    }
  }
  if (!(sxx > 0.0)) return kDefaultGrowth;
  return std::clamp(sxy / sxx, kGrowthRange[0], kGrowthRange[1]);
}

// ln(largest / second largest) of the scale column: the step the choice part was measured at.
double step_log(const Selection& s) {
  if (s.split.column.empty() || !s.set.rows->find(s.split.column)) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = data::distinct_values(s.set.rows->column(s.split.column));
  if (v.size() < 2 || !(v[v.size() - 2] > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return std::log(v.back() / v[v.size() - 2]);
}

}  // namespace

ChoiceSpread choice_spread(const Selection& s) {
  ChoiceSpread out;
  if (s.few_scales) {
    out = disagreement_spread(s.ranked, *s.set.rows, s.split.column);
    out.growth = kDefaultGrowth;
  } else if (!s.folds.empty()) {
    out = held_out_spread(s.ranked.front(), s.split.text());
    out.growth = distance_growth(s.ranked.front(), s);
  }
  out.step_log = step_log(s);
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

std::vector<io::CandidateFit> candidate_fits(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s) {
  std::vector<io::CandidateFit> out;
  for (std::size_t k = 0; k < s.ranked.size(); ++k) {
    const Candidate& c = s.ranked[k];
    io::CandidateFit f{k + 1, c.model->spec().name, c.word, c.score, c.pooled.failed ? NAN : c.pooled.metrics.mape, "", {}};
    if (k > 0 && std::isfinite(c.score)) {  // the winner's constants are the result's own
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

job::FitJob candidate_job(const SelectArgs& a, const fit::RunConfig& cfg, const Selection& s, std::size_t k) {
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
  // Rows given in memory: a copy per job, whose fit may drop invalid rows from it.
  if (a.source.given) job.table = std::make_shared<data::MeasurementTable>(*a.source.given);
  if (!a.config.empty()) job.inputs.push_back(a.config);
  job.force = a.force;
  job.verbose = false;
  return job;
}


}  // namespace perfit::select
