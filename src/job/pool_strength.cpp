#include "perfit/job/pool_strength.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/text.hpp"
#include "perfit/fit/spread.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::job {

namespace {

// Agreement below this relative spread counts as full agreement: the strength stays finite.
constexpr double kSpreadFloor = 1e-3;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Robust spread of values around their median: 1.4826 x the median absolute deviation (the sd
// for normal values), so that one group whose own rows leave a constant wild does not decide
// how different the groups are.
double robust_sd(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> dev;
  for (const double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * median(dev);
}

// Few-shot folds: for each of up to kFewShotFolds groups measured at 4 or more scales, every
// other group's rows and this group's two smallest scales train, its larger scales are held
// out, so that a strength is judged by what pooling is for.
constexpr std::size_t kFewShotFolds = 4;

std::vector<data::Fold> few_shot_folds(const data::MeasurementTable& t, std::size_t n_groups, const std::string& scale) {
  std::vector<data::Fold> out;
  if (scale.empty() || !t.find(scale)) return out;
  const std::vector<double> x = t.column(scale).to_double();
  std::vector<std::size_t> group(t.rows(), 0);
  for (std::size_t g = 1; g <= n_groups; ++g) {
    const auto& ind = t.column(model::group_indicator(g)).f64();
    for (std::size_t i = 0; i < t.rows(); ++i) {
      if (ind[i] == 1.0) group[i] = g;
    }
  }
  std::vector<std::size_t> eligible;
  std::vector<double> cut(n_groups + 1, 0.0);
  for (std::size_t g = 1; g <= n_groups; ++g) {
    std::vector<double> mine;
    for (std::size_t i = 0; i < t.rows(); ++i) {
      if (group[i] == g) mine.push_back(x[i]);
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    if (mine.size() >= 4) {
      eligible.push_back(g);
      cut[g] = mine[1];
    }
  }
  const std::size_t n = std::min(kFewShotFolds, eligible.size());
  for (std::size_t f = 0; f < n; ++f) {
    const std::size_t g = eligible[f * eligible.size() / n];  // spread over the groups
    data::Fold fold;
    fold.name = "group " + std::to_string(g) + " at its two smallest scales";
    fold.train.assign(t.rows(), true);
    fold.test.assign(t.rows(), false);
    for (std::size_t i = 0; i < t.rows(); ++i) {
      if (group[i] == g && x[i] > cut[g]) {
        fold.train[i] = false;
        fold.test[i] = true;
      }
    }
    for (std::size_t i = 0; i < t.rows(); ++i) (fold.train[i] ? fold.train_rows : fold.test_rows)++;
    out.push_back(std::move(fold));
  }
  return out;
}

std::vector<model::PoolStrength> times(std::vector<model::PoolStrength> pooled, double factor) {
  for (auto& p : pooled) p.strength *= factor;
  return pooled;
}

}  // namespace

std::vector<double> pool_strength_multipliers() { return {0.0, 0.1, 1.0, 10.0}; }

namespace {

// The empirical-Bayes strengths times the multiplier that predicts the few-shot folds best
// (ties to the stronger pooling); unchanged without such folds.
void scale_by_held_out(PoolChoice& c, const model::ModelSpec& base, std::size_t n_groups, const model::ConstantKinds& kinds,
                       const fit::FitProblem& p, const de::FitOptions& options, MPI_Comm world) {
  const std::string scale = p.scale.empty() ? model::scale_column(*p.model) : p.scale;
  const std::vector<data::Fold> folds = few_shot_folds(*p.rows, n_groups, scale);
  if (folds.empty()) {
    c.how += "; no group measured at 4 or more scales to check it on";
    return;
  }
  const std::vector<double> grid = pool_strength_multipliers();
  std::vector<fit::FoldJob> jobs;
  for (const double m : grid) {
    for (const auto& f : folds) {
      fit::FoldJob j{p, &f};
      j.problem.model = std::make_shared<const model::Model>(
          model::expand_for_groups(base, n_groups, kinds.per_group, times(c.pooled, m)), p.rows->column_names());
      jobs.push_back(std::move(j));
    }
  }
  const std::vector<fit::FoldFit> fits = fit::fit_folds(jobs, options, world, false);
  std::vector<double> scores;
  std::size_t best = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::vector<fit::FoldFit> of(fits.begin() + static_cast<std::ptrdiff_t>(i * folds.size()),
                                       fits.begin() + static_cast<std::ptrdiff_t>((i + 1) * folds.size()));
    scores.push_back(fit::pool(of, p.cost.residual).cost);
    if (scores[i] <= scores[best]) best = i;
  }
  c.pooled = times(c.pooled, grid[best]);
  std::string curve;
  for (std::size_t i = 0; i < grid.size(); ++i) curve += (i ? " " : "") + format_g(grid[i]) + ":" + format_g(scores[i], 3);
  c.how += ", times " + format_g(grid[best]) + " as predicted " + std::to_string(folds.size()) +
           " groups best from their two smallest scales (held-out cost per multiplier " + curve + ")";
}

}  // namespace

PoolChoice choose_pool_strength(const model::ModelSpec& base, std::size_t n_groups, const model::ConstantKinds& kinds,
                                const fit::FitProblem& problem, double given, const de::FitOptions& options,
                                const island::IslandLayout& layout) {
  PoolChoice c;
  if (!std::isnan(given)) {
    for (const auto& name : kinds.pooled) c.pooled.push_back({name, given, 1.0});
    c.how = "strength " + format_g(given) + " as given, on each constant's own scale";
  }
  // The groups' constants fitted independently: their values, and the noise.
  fit::FitProblem p = problem;
  p.quiet = true;
  p.bootstrap = 0;
  if (layout.island_size > 1) p.rows = fit::gather_rows(*problem.rows, layout.island_comm.get());
  model::ConstantKinds free = kinds;
  free.per_group.insert(free.per_group.end(), kinds.pooled.begin(), kinds.pooled.end());
  free.pooled.clear();
  fit::FoldJob job{p, nullptr};
  job.problem.model = std::make_shared<const model::Model>(
      model::expand_for_groups(base, n_groups, free.per_group, {}), p.rows->column_names());
  const fit::FoldFit fitted = fit::fit_folds({job}, options, layout.world, false).front();
  const auto& names = job.problem.model->param_names();
  const double rows = static_cast<double>(fitted.train_rows), noise = fitted.train_cost;
  std::string spreads;
  for (std::size_t k = 0; k < kinds.pooled.size(); ++k) {
    const std::string& name = kinds.pooled[k];
    std::vector<double> values;
    double lo = 0.0, hi = 0.0;
    for (std::size_t g = 1; g <= n_groups; ++g) {
      const auto i = static_cast<std::size_t>(std::find(names.begin(), names.end(), model::group_param(name, g)) - names.begin());
      values.push_back(fitted.failed ? 0.0 : fitted.params(static_cast<Eigen::Index>(i)));
      lo = job.problem.model->spec().params[i].lo;
      hi = job.problem.model->spec().params[i].hi;
    }
    const double typical = std::fabs(median(values));
    const double scale = typical > 0.0 && std::isfinite(typical) ? typical : 1e-3 * (hi - lo);
    if (!std::isnan(given)) {
      c.pooled[k].scale = scale;
      continue;
    }
    std::vector<double> relative;
    for (const double v : values) relative.push_back(v / scale);
    const double tau = std::max(robust_sd(relative), kSpreadFloor);
    const double strength = fitted.failed || !(noise > 0.0) ? 0.0 : noise / (rows * tau * tau);
    c.pooled.push_back({name, strength, scale});
    spreads += (spreads.empty() ? "" : ", ") + name + " " + format_g(100.0 * tau, 3) + "%";
  }
  if (std::isnan(given)) {
    c.how = "empirical Bayes: the groups' robust spread fitted independently (" + spreads + ") against the noise (cost " +
            format_g(noise, 3) + " over " + std::to_string(fitted.train_rows) + " rows)";
    scale_by_held_out(c, base, n_groups, kinds, p, options, layout.world);
  }
  spdlog::log(problem.quiet ? spdlog::level::debug : spdlog::level::info, "pooled {}: {}", join(kinds.pooled), c.how);
  return c;
}

}  // namespace perfit::job
