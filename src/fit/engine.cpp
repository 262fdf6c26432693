#include "perfit/fit/engine.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "fit_objective.hpp"
#include "perfit/core/error.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/fit/held_out.hpp"
#include "perfit/fit/lambda_choice.hpp"
#include "perfit/model/compression.hpp"
#include "perfit/model/separable.hpp"
#include "perfit/mpi/communicator.hpp"
#include "polish.hpp"
#include "search_sample.hpp"

namespace perfit::fit {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Sums over the ranks that share one island's rows; nothing on one rank.
model::Reducer island_sum(const island::IslandLayout& L) {
  if (L.island_size == 1) return {};
  return [&L](double* data, std::size_t n) {
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                             L.island_comm.get()),
               "MPI_Allreduce (island rows)");
  };
}

// Worth compressing: a strided sample of the rows holds at most half as many distinct
// configurations as rows (cheap; all-distinct data pays nothing for the test).
bool compression_pays(const FitProblem& p) {
  if (!p.compress || p.cost.residual == model::Residual::ape) return false;
  const data::MeasurementTable& t = *p.rows;
  const std::size_t n = t.rows(), step = std::max<std::size_t>(1, n / 8192);
  if (n < 64) return false;
  std::vector<bool> keep(n, false);
  for (std::size_t i = 0; i < n; i += step) keep[i] = true;
  data::MeasurementTable sample;
  for (const auto& name : p.model->columns_used()) sample.add_column(t.column(name));
  sample.filter_rows(keep);
  return 2 * model::count_configurations(sample, p.model->columns_used()) <= sample.rows();
}

std::string describe(const model::Model& m, const std::vector<std::size_t>& params) {
  std::string out;
  for (const std::size_t i : params) out += (out.empty() ? "" : ", ") + m.param_names()[i];
  return out;
}

// Many searched params and a start where every group was fitted alone: one DE over all of
// them would grow with the groups (100 groups: a population of 1,800 in 100 dimensions, 2 s a
// generation) where the groups' own searches are done; the polish descends from the start.
island::IslandSummary started(detail::FitObjective& objective, const Eigen::VectorXd& start_unit) {
  island::IslandSummary s;
  s.reason = de::StopReason::converged;
  s.best = objective.search_unit(start_unit);
  Eigen::VectorXd one(1);
  objective(s.best, one);
  s.best_cost = one(0);
  s.message = "started where every group was fitted alone; the polish searched the " +
              std::to_string(objective.dim()) + " params from there (a joint fit of more than " +
              std::to_string(kSearchFromStartDims) + ")";
  s.evaluations = 1;
  return s;
}

// Every param linear: the bounded least-squares solution is the global optimum; no search.
island::IslandSummary solved_without_search(bool no_params) {
  island::IslandSummary s;
  s.reason = de::StopReason::converged;
  s.message = no_params
                  ? "the model has no params (only constants): evaluated, nothing to fit"
                  : "every constant is linear: solved exactly by bounded least squares, no search";
  s.evaluations = 1;
  return s;
}

// The search: none when every param is linear, a joint fit's polish from its start, or the DE
// on its islands (seeded with the start, if any) over `searched` (the objective or a sample of it).
island::IslandSummary search(const FitProblem& p, const de::DeOptions& de,
                             const island::IslandOptions& islands, const island::IslandLayout& L,
                             const island::RunHooks& hooks, detail::FitObjective& objective,
                             detail::FitObjective& searched) {
  const model::Model& m = *p.model;
  if (objective.dim() == 0) return solved_without_search(m.n_params() == 0);
  Eigen::VectorXd start(p.start.size());
  for (Eigen::Index k = 0; k < p.start.size(); ++k)
    start(k) = m.to_unit(static_cast<std::size_t>(k), p.start(k));
  if (p.start.size() > 0 && objective.dim() > kSearchFromStartDims)
    return started(objective, start);
  de::DeOptions seeded = de;
  if (p.start.size() > 0) seeded.x0.push_back(start);
  for (auto& x : seeded.x0) x = objective.search_unit(x);
  return island::run_islands(L, objective.dim(), seeded, islands, std::ref(searched), hooks);
}

model::Separation separation(const model::Model& m, const model::CostOptions& cost,
                             model::SeparableMode mode) {
  if (mode == model::SeparableMode::off) return {};
  return model::separate(m, model::projectable_params(m, cost));
}

// What the search found: the best as a full unit-cube point (linear params solved) and its
// cost judged by the evaluator, with the search's counts and times.
FitReport search_report(const island::IslandSummary& s, const island::IslandLayout& L,
                        detail::FitObjective& objective, bool sampled) {
  FitReport r;
  r.reason = s.reason;
  r.message = s.message;
  r.generations = s.generations;
  r.evaluations = s.evaluations;
  r.epochs = s.epochs;
  r.best_island = s.best_island;
  r.de_seconds = s.seconds;
  r.migration_seconds = s.migration_seconds;
  r.vote_seconds = s.vote_seconds;
  r.reduce_seconds = objective.reduce_seconds();
  // One island: the best after every generation; islands: the global best after each epoch.
  r.history = L.n_islands == 1 ? s.island_history : s.history;
  r.unit = objective.full_unit(s.best);
  if (objective.projected() || objective.dim() == 0 ||
      sampled) {  // judged like the polish: by the evaluator, on every row
    Eigen::VectorXd one(1);
    objective.full_costs(r.unit, one);
    r.cost = one(0);
  } else {
    r.cost = s.best_cost;
  }
  r.cost_before_polish = r.cost;
  r.checkpointed = s.checkpointed;
  return r;
}

// Metrics over all rows (island 0's slices add up to the whole set; a streamed fit's from its
// configurations' moments) and the identifiability check, at r.params.
void whole_set_checks(FitReport& r, const model::Evaluator& full,
                      const model::ConfigurationMoments* moments, const island::IslandLayout& L,
                      const model::Reducer& sum, bool diagnose) {
  model::MetricSums ms = moments ? model::metric_sums(full.predict(r.params), *moments)
                                 : model::metric_sums(full.predict(r.params), full.measured());
  if (L.island_size > 1) {
    const MPI_Comm ic = L.island_comm.get();
    mpi::check(
        MPI_Allreduce(MPI_IN_PLACE, &ms.n, model::MetricSums::kSummed, MPI_DOUBLE, MPI_SUM, ic),
        "MPI_Allreduce (metrics)");
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &ms.max_rel, 1, MPI_DOUBLE, MPI_MAX, ic),
               "MPI_Allreduce (max)");
  }
  r.metrics = model::metrics_from_sums(ms);
  const double k = static_cast<double>(full.model().n_params());
  if (ms.n > k && std::isfinite(ms.sum_log_ratio_sq)) {
    r.noise_dof = static_cast<std::size_t>(ms.n - k);
    r.noise_log_sd = std::sqrt(ms.sum_log_ratio_sq / (ms.n - k));
  }
  const ColumnSplit columns = detail::world_columns(L, full.model().n_params());
  if ((L.island == 0 || columns.split()) && diagnose)
    r.identifiability = model::check_identifiability(full, r.params, sum, columns);
}

// A large set with the polish to finish on every row: the DE searches a strided sample (the
// compressed constant scaled to its share of the weight). A target cost is a promise about the
// whole set's cost, and without the polish the DE's answer is the fit: both search every row.
std::optional<detail::FitObjective> sampled_objective(
    const FitProblem& p, const de::FitOptions& options, const detail::FitObjective& all,
    const data::MeasurementTable& rows, double offset, double weight, const model::Separation& sep,
    const model::Reducer& sum, std::optional<detail::SearchSample>& sample) {
  if (all.dim() == 0 || !options.polish || std::isfinite(options.de.target_cost))
    return std::nullopt;
  const model::Evaluator& ev = all.evaluator();
  // Every rank that shares the rows must take the same branch (the reductions below).
  double too_few = detail::SearchSample::worth(ev.rows(), options.search_rows) ? 0.0 : 1.0;
  if (sum) sum(&too_few, 1);
  if (too_few > 0.0) return std::nullopt;
  sample = detail::SearchSample::take(ev, rows, options.search_rows);
  double w = sample->evaluator().weight_sum();
  if (sum) sum(&w, 1);
  if (!(w > 0.0)) return std::nullopt;  // the sample missed every weighted row: search all
  spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
              "{} rows: the search evaluates one row in {} ({} rows), the polish and every result "
              "all of them (search_rows: 0 to search on all)",
              ev.rows(), sample->stride(), sample->rows());
  return std::optional<detail::FitObjective>(std::in_place, sample->evaluator(),
                                             offset * (w / weight), w, sum, &sep);
}

}  // namespace

std::size_t search_dimension(const model::Model& m, const model::CostOptions& cost,
                             model::SeparableMode mode) {
  const model::Separation s = separation(m, cost, mode);
  return s.separable() ? s.nonlinear.size() : m.n_params();
}

namespace {

// lambda: auto: cross-validation picks lambda, then the fit runs with it.
FitReport fit_choosing_lambda(const FitProblem& p, const de::FitOptions& options,
                              const island::IslandOptions& islands, const island::IslandLayout& L,
                              const island::RunHooks& hooks) {
  const double cv_start = now_s();
  FitProblem chosen = p;
  const LambdaChoice c = choose_lambda(p, options, L);
  chosen.cost.lambda = c.lambda;
  chosen.cost.lambda_auto = false;
  if (!c.note.empty())
    spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::warn, "lambda auto: {}", c.note);
  FitReport r = fit(chosen, options, islands, L, hooks);
  r.lambda = c;
  r.seconds = now_s() - cv_start;  // the whole fit, the cross-validation included
  return r;
}

// Params from the unit cube, which are at a bound, which were solved linearly.
void describe_params(FitReport& r, const model::Model& m, const model::Separation& sep,
                     bool projected) {
  r.params = m.params_from_unit(r.unit);
  r.at_bound.resize(m.n_params());
  r.linear.assign(m.n_params(), false);
  if (projected) {
    for (const std::size_t i : sep.linear) r.linear[i] = true;
  }
  for (std::size_t k = 0; k < m.n_params(); ++k) {
    const double u = r.unit(static_cast<Eigen::Index>(k));
    r.at_bound[k] = u < 1e-6 || u > 1.0 - 1e-6;
  }
}

// Each param at a bound moved past it (log-scaled: by 1.2x, 2x and 10x; linear: by 2%, 10% and
// 25% of its range), the others kept: the lowest cost there, relative to the fit's. A far step
// alone can overshoot a nearby optimum, a near one alone cannot tell a pull from noise.
// Collective over the ranks that share the rows.
void probe_bounds(FitReport& r, const model::Evaluator& ev, double offset, double weight,
                  const model::Reducer& sum) {
  const model::Model& m = ev.model();
  r.past_bound.assign(m.n_params(), std::numeric_limits<double>::quiet_NaN());
  std::vector<std::size_t> probed;
  for (std::size_t k = 0; k < m.n_params(); ++k) {
    if (r.at_bound[k]) probed.push_back(k);
  }
  if (probed.empty() || !std::isfinite(r.cost) || r.cost <= 0.0) return;
  constexpr int kSteps = 3;
  const double factor[kSteps] = {1.2, 2.0, 10.0}, share[kSteps] = {0.02, 0.1, 0.25};
  Eigen::MatrixXd pop(static_cast<Eigen::Index>(m.n_params()),
                      static_cast<Eigen::Index>(kSteps * probed.size()));
  for (std::size_t j = 0; j < probed.size(); ++j) {
    const auto k = static_cast<Eigen::Index>(probed[j]);
    const auto& spec = m.spec().params[probed[j]];
    const bool low = r.unit(k) < 0.5;
    for (int s = 0; s < kSteps; ++s) {
      const double v = spec.log_scale ? (low ? spec.lo / factor[s] : spec.hi * factor[s])
                                      : (low ? spec.lo - share[s] * (spec.hi - spec.lo)
                                             : spec.hi + share[s] * (spec.hi - spec.lo));
      const auto col = static_cast<Eigen::Index>(kSteps * j + static_cast<std::size_t>(s));
      pop.col(col) = r.params;
      pop(k, col) = v;
    }
  }
  Eigen::VectorXd sums(pop.cols());
  ev.residual_sums(pop, sums);
  sums.array() += offset;
  if (sum) sum(sums.data(), static_cast<std::size_t>(sums.size()));
  ev.costs_from_sums(pop, sums, weight);
  for (std::size_t j = 0; j < probed.size(); ++j) {
    const double c = sums.segment(static_cast<Eigen::Index>(kSteps * j), kSteps).minCoeff();
    r.past_bound[probed[j]] =
        std::isfinite(c) ? (c - r.cost) / r.cost : std::numeric_limits<double>::infinity();
  }
}

}  // namespace

FitReport fit(const FitProblem& p, const de::FitOptions& options,
              const island::IslandOptions& islands, const island::IslandLayout& L,
              const island::RunHooks& hooks) {
  if (p.cost.lambda_auto) return fit_choosing_lambda(p, options, islands, L, hooks);
  const double t0 = now_s();
  const model::Model& m = *p.model;
  model::EvaluatorOptions eo;
  eo.threads = p.threads;
  eo.row_weights = p.weights;
  const model::Evaluator full(m, *p.rows, p.cost, eo);  // metrics and identifiability: every row
  // Streamed: the rows are already configurations, with the rows' constant and weight beside.
  const model::CompressedRows* streamed =
      p.streamed && p.rows.get() == &p.streamed->table ? p.streamed.get() : nullptr;
  // The DE and the polish see one row per configuration when that pays, with the rows'
  // residual constant added to every sum: the same costs up to rounding.
  std::optional<model::CompressedRows> packed;
  std::optional<model::Evaluator> small;
  if (compression_pays(p)) {
    std::vector<double> rw(p.weights.data(), p.weights.data() + p.weights.size());
    packed = model::compress_rows(*p.rows, m.columns_used(), p.cost, rw);
    model::CostOptions c = p.cost;
    c.weight_column = model::kCompressedWeight;
    model::EvaluatorOptions so;
    so.threads = p.threads;
    small.emplace(m, packed->table, c, so);
    spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
                "{} rows -> {} distinct configurations: each evaluated once (compress: false "
                "to evaluate every row)",
                packed->rows, packed->configurations);
  }
  const model::Evaluator& ev = small ? *small : full;
  const model::CompressedRows* rows_as = packed ? &*packed : streamed;
  const double offset = rows_as ? rows_as->offset : 0.0;
  const model::Reducer sum = island_sum(L);
  double weight = rows_as ? rows_as->weight_sum : full.weight_sum();
  if (sum) sum(&weight, 1);
  if (!(weight > 0.0)) throw DataError("the rows to fit weigh nothing (all weights are 0)");

  // Variable projection: the DE searches only the nonlinear params (model/separable.hpp).
  const model::Separation sep = separation(m, p.cost, p.separable);
  detail::FitObjective objective(ev, offset, weight, sum, &sep);
  if (objective.projected()) {
    spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
                "{} of {} constants are linear and solved by least squares for each candidate; the "
                "search covers {} (separable: off to search all)",
                sep.linear.size(), m.n_params(),
                objective.dim() == 0 ? std::string("nothing") : describe(m, sep.nonlinear));
  }
  std::optional<detail::SearchSample> sample;
  std::optional<detail::FitObjective> sampled = sampled_objective(
      p, options, objective, packed ? packed->table : *p.rows, offset, weight, sep, sum, sample);
  const island::IslandSummary s =
      search(p, options.de, islands, L, hooks, objective, sampled ? *sampled : objective);
  FitReport r = search_report(s, L, objective, sampled.has_value());
  if (options.polish && m.n_params() > 0)
    detail::polish(r, ev, objective, sum, weight,
                   L);  // nothing to polish: a model of constants only
  describe_params(r, m, sep, objective.projected());
  if (p.diagnose) probe_bounds(r, ev, offset, weight, sum);
  whole_set_checks(r, full, streamed ? &streamed->moments : nullptr, L, sum, p.diagnose);
  if (p.bootstrap > 0 && m.n_params() > 0 && !r.checkpointed &&
      r.reason != de::StopReason::interrupted && std::isfinite(r.cost)) {
    r.bootstrap = bootstrap(p, options, r.unit, L, hooks.interrupted);
  }
  // On what every rank agrees (the stop reason is voted): the check's gathers are collective.
  if (p.forward_check && m.n_params() > 0 && !r.checkpointed &&
      r.reason != de::StopReason::interrupted && std::isfinite(r.cost)) {
    r.forward = forward_check(p, options, r.unit, L, rows_as);
  }
  r.rows = rows_as ? rows_as->rows : p.rows->rows();
  r.configurations = rows_as ? rows_as->configurations : r.rows;
  r.seconds = now_s() - t0;
  return r;
}

}  // namespace perfit::fit
