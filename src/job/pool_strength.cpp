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

// Row -> its group (1..n_groups), from the indicator columns.
std::vector<std::size_t> row_groups(const data::MeasurementTable& t, std::size_t n_groups) {
  std::vector<std::size_t> group(t.rows(), 0);
  for (std::size_t g = 1; g <= n_groups; ++g) {
    const auto& ind = t.column(model::group_indicator(g)).f64();
    for (std::size_t i = 0; i < t.rows(); ++i) {
      if (ind[i] == 1.0) group[i] = g;
    }
  }
  return group;
}

struct FewShotFold {
  std::size_t group = 0;  // held out above its two smallest scales
  data::Fold fold;        // with every other group's rows
  data::Fold alone;       // its two smallest scales only, the same rows held out
};

std::vector<FewShotFold> few_shot_folds(const data::MeasurementTable& t, std::size_t n_groups,
                                        const std::string& scale) {
  std::vector<FewShotFold> out;
  if (scale.empty() || !t.find(scale)) return out;
  const std::vector<double> x = t.column(scale).to_double();
  const std::vector<std::size_t> group = row_groups(t, n_groups);
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
    data::Fold alone = fold;
    alone.name = "group " + std::to_string(g) + " alone at its two smallest scales";
    alone.train_rows = 0;
    for (std::size_t i = 0; i < t.rows(); ++i)
      alone.train_rows += (alone.train[i] = group[i] == g && x[i] <= cut[g]) ? 1 : 0;
    out.push_back({g, std::move(fold), std::move(alone)});
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
void scale_by_held_out(PoolChoice& c, const model::ModelSpec& base, std::size_t n_groups,
                       const model::ConstantKinds& kinds, const fit::FitProblem& p,
                       const de::FitOptions& options, MPI_Comm world) {
  const std::string scale = p.scale.empty() ? model::scale_column(*p.model) : p.scale;
  const std::vector<FewShotFold> folds = few_shot_folds(*p.rows, n_groups, scale);
  if (folds.empty()) {
    c.how += "; no group measured at 4 or more scales to check it on";
    return;
  }
  const std::vector<double> grid = pool_strength_multipliers();
  std::vector<fit::FoldJob> jobs;
  const auto own = std::make_shared<const model::Model>(base, p.rows->column_names());
  for (const double m : grid) {
    for (const auto& f : folds) {
      // Without pooling or shared constants the groups do not meet: the group fitted alone on
      // its two smallest scales predicts what the joint fit would, at a hundredth of the cost.
      if (m == 0.0 && kinds.shared.empty()) {
        fit::FoldJob j{p, &f.alone};
        j.problem.model = own;
        jobs.push_back(std::move(j));
        continue;
      }
      fit::FoldJob j{p, &f.fold};
      j.problem.model = std::make_shared<const model::Model>(
          model::expand_for_groups(base, n_groups, kinds.per_group, times(c.pooled, m)),
          p.rows->column_names());
      // The held-out group starts at the others' values: its own were fitted on the rows it
      // predicts.
      j.problem.start = joint_start(*j.problem.model, c.alone, f.group);
      jobs.push_back(std::move(j));
    }
  }
  const std::vector<fit::FoldFit> fits = fit::fit_folds(jobs, options, world, false);
  std::vector<double> scores;
  std::size_t best = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::vector<fit::FoldFit> of(
        fits.begin() + static_cast<std::ptrdiff_t>(i * folds.size()),
        fits.begin() + static_cast<std::ptrdiff_t>((i + 1) * folds.size()));
    scores.push_back(fit::pool(of, p.cost.residual).cost);
    if (scores[i] <= scores[best]) best = i;
  }
  c.pooled = times(c.pooled, grid[best]);
  std::string curve;
  for (std::size_t i = 0; i < grid.size(); ++i)
    curve += (i ? " " : "") + format_g(grid[i]) + ":" + format_g(scores[i], 3);
  c.how += ", times " + format_g(grid[best]) + " as predicted " + std::to_string(folds.size()) +
           " groups best from their two smallest scales (held-out cost per multiplier " + curve +
           ")";
}

}  // namespace

namespace {

// Every group fitted alone on its own rows with the base model: one small search per group,
// the groups spread over the ranks, where one search over every group's constants at once
// grew with the groups (100 groups: 152 s for this step).
Alone fit_alone(const model::ModelSpec& base, std::size_t n_groups, const fit::FitProblem& p,
                const de::FitOptions& options, MPI_Comm world) {
  const std::vector<std::size_t> group = row_groups(*p.rows, n_groups);
  std::vector<data::Fold> folds(n_groups);
  for (std::size_t g = 1; g <= n_groups; ++g) {
    data::Fold& f = folds[g - 1];
    f.name = "group " + std::to_string(g) + " alone";
    f.test.assign(group.size(), false);
    f.train.resize(group.size());
    for (std::size_t i = 0; i < group.size(); ++i)
      f.train_rows += (f.train[i] = group[i] == g) ? 1 : 0;
  }
  const auto model = std::make_shared<const model::Model>(base, p.rows->column_names());
  std::vector<fit::FoldJob> jobs;
  for (const auto& f : folds) {
    fit::FoldJob j{p, &f};
    j.problem.model = model;
    jobs.push_back(std::move(j));
  }
  Alone a;
  a.names = model->param_names();
  double cost = 0.0;
  for (const fit::FoldFit& f : fit::fit_folds(jobs, options, world, false)) {
    a.params.push_back(
        f.failed ? Eigen::VectorXd::Constant(static_cast<Eigen::Index>(a.names.size()), NAN)
                 : f.params);
    if (f.failed) continue;
    cost += f.train_cost * static_cast<double>(f.train_rows);
    a.rows += f.train_rows;
  }
  a.noise = a.rows > 0 ? cost / static_cast<double>(a.rows) : NAN;
  return a;
}

}  // namespace

double Alone::median_of(const std::string& constant, std::size_t skip) const {
  const auto k =
      static_cast<Eigen::Index>(std::find(names.begin(), names.end(), constant) - names.begin());
  std::vector<double> values;
  for (std::size_t g = 1; g <= params.size(); ++g) {
    if (g != skip && std::isfinite(params[g - 1](k))) values.push_back(params[g - 1](k));
  }
  return values.empty() ? NAN : median(values);
}

Eigen::VectorXd joint_start(const model::Model& m, const Alone& alone, std::size_t skip) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(m.n_params()));
  for (std::size_t i = 0; i < m.n_params(); ++i) {
    const auto [constant, g] = model::split_group_param(m.param_names()[i]);
    const auto k = static_cast<Eigen::Index>(
        std::find(alone.names.begin(), alone.names.end(), constant) - alone.names.begin());
    double v = NAN;
    if (g > 0 && g <= alone.params.size() && g != skip &&
        k < static_cast<Eigen::Index>(alone.names.size())) {
      v = alone.params[g - 1](k);
    }
    if (!std::isfinite(v) && k < static_cast<Eigen::Index>(alone.names.size()))
      v = alone.median_of(constant, skip);
    const auto& spec = m.spec().params[i];
    // Where no group fitted: the middle of the bounds, as a search would start.
    x(static_cast<Eigen::Index>(i)) =
        std::isfinite(v) ? std::clamp(v, spec.lo, spec.hi) : m.from_unit(i, 0.5);
  }
  return x;
}

PoolChoice choose_pool_strength(const model::ModelSpec& base, std::size_t n_groups,
                                const model::ConstantKinds& kinds, const fit::FitProblem& problem,
                                double given, const de::FitOptions& options,
                                const island::IslandLayout& layout) {
  PoolChoice c;
  if (!std::isnan(given)) {
    for (const auto& name : kinds.pooled) c.pooled.push_back({name, given, 1.0});
    c.how = "strength " + format_g(given) + " as given, on each constant's own scale";
  }
  fit::FitProblem p = problem;
  p.quiet = true;
  p.bootstrap = 0;
  p.forward_check = false;
  if (layout.island_size > 1) p.rows = fit::gather_rows(*problem.rows, layout.island_comm.get());
  c.alone = fit_alone(base, n_groups, p, options, layout.world);
  if (kinds.pooled.empty()) return c;
  const double noise = c.alone.noise, rows = static_cast<double>(c.alone.rows);
  std::string spreads;
  for (std::size_t k = 0; k < kinds.pooled.size(); ++k) {
    const std::string& name = kinds.pooled[k];
    const auto i = static_cast<std::size_t>(
        std::find(c.alone.names.begin(), c.alone.names.end(), name) - c.alone.names.begin());
    std::vector<double> values;
    for (const auto& v : c.alone.params) {
      if (std::isfinite(v(static_cast<Eigen::Index>(i))))
        values.push_back(v(static_cast<Eigen::Index>(i)));
    }
    const double typical = values.empty() ? 0.0 : std::fabs(median(values));
    const double scale = typical > 0.0 && std::isfinite(typical)
                             ? typical
                             : 1e-3 * (base.params[i].hi - base.params[i].lo);
    if (!std::isnan(given)) {
      c.pooled[k].scale = scale;
      continue;
    }
    std::vector<double> relative;
    for (const double v : values) relative.push_back(v / scale);
    const double tau = std::max(relative.empty() ? 0.0 : robust_sd(relative), kSpreadFloor);
    const double strength = values.empty() || !(noise > 0.0) ? 0.0 : noise / (rows * tau * tau);
    c.pooled.push_back({name, strength, scale});
    spreads += (spreads.empty() ? "" : ", ") + name + " " + format_g(100.0 * tau, 3) + "%";
  }
  if (std::isnan(given)) {
    c.how = "empirical Bayes: the groups' robust spread, each group fitted alone (" + spreads +
            "), against the noise (cost " + format_g(noise, 3) + " over " +
            std::to_string(c.alone.rows) + " rows)";
    scale_by_held_out(c, base, n_groups, kinds, p, options, layout.world);
  }
  spdlog::log(problem.quiet ? spdlog::level::debug : spdlog::level::info, "pooled {}: {}",
              join(kinds.pooled), c.how);
  return c;
}

}  // namespace perfit::job
