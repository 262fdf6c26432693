#include "perfit/fit/lambda_choice.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/fit/spread.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/compression.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::fit {

namespace {

// Leave-one-scale-out with a rolling origin over the scale column (given, p or p's column, else
// the factor with the most distinct values): each scale from the third up is predicted from the
// smaller ones, which is the extrapolation users need; plain leave-one-scale-out (interior
// scales held out too) chose lambdas that extrapolated worse (docs/validation.md). k-fold when
// there are fewer than 3 scales.
data::SplitSpec lambda_split(const model::Model& m, const data::MeasurementTable& t,
                             const std::string& scale, std::string& note) {
  std::size_t best = 0;
  data::SplitSpec s;
  const std::string column = scale.empty() ? model::scale_column(m) : scale;
  const std::vector<std::string> candidates =
      column.empty() ? m.columns_used() : std::vector<std::string>{column};
  for (const auto& name : candidates) {
    const std::size_t n = data::distinct_values(t.column(name)).size();
    if (n > best) {
      best = n;
      s.kind = data::SplitKind::forward;
      s.column = name;
    }
  }
  if (best >= 3) return s;
  const std::size_t configs = model::count_configurations(t, m.columns_used());
  s = {};
  s.kind = data::SplitKind::kfold;
  s.k = std::min<std::size_t>(5, configs);
  if (s.k < 3)
    note = "the rows hold " + std::to_string(configs) +
           " configuration(s): too few to cross-validate; lambda 0";
  return s;
}

// The lowest held-out cost, but lambda 0 unless a lambda > 0 beats it by kMinGain: below that
// the grid's differences are the search's own noise (lambda 1e-8 and 0 differ by up to 5% on
// small sets only because their searches take other paths), and choosing on noise made the
// extrapolation worse more often than better (docs/validation.md).
constexpr double kMinGain = 0.05;

std::size_t best_index(const std::vector<double>& scores) {
  std::size_t best = 0;  // ties go to the smaller lambda (earlier in the grid)
  for (std::size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] < scores[best]) best = i;
  }
  return scores[best] <= (1.0 - kMinGain) * scores[0] ? best : 0;
}

}  // namespace

std::vector<double> lambda_grid() { return {0.0, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1}; }

LambdaChoice choose_lambda(const FitProblem& p, const de::FitOptions& options,
                           const island::IslandLayout& L) {
  const auto rows = L.island_size > 1 ? gather_rows(*p.rows, L.island_comm.get()) : p.rows;
  LambdaChoice c;
  const data::SplitSpec split = lambda_split(*p.model, *rows, p.scale, c.note);
  if (!c.note.empty()) return c;
  c.split = split.text();
  const std::vector<data::Fold> folds =
      data::make_folds(split, *rows, p.model->columns_used(), options.de.seed);
  c.folds = folds.size();
  c.lambdas = lambda_grid();
  std::vector<FoldJob> jobs;
  for (const double lambda : c.lambdas) {
    for (const auto& f : folds) {
      FoldJob j{p, &f};
      j.problem.rows = rows;
      j.problem.cost.lambda = lambda;
      j.problem.cost.lambda_auto = false;
      jobs.push_back(std::move(j));
    }
  }
  const std::vector<FoldFit> fits = fit_folds(jobs, options, L.world, false);
  for (std::size_t i = 0; i < c.lambdas.size(); ++i) {
    const std::vector<FoldFit> of_lambda(
        fits.begin() + static_cast<std::ptrdiff_t>(i * folds.size()),
        fits.begin() + static_cast<std::ptrdiff_t>((i + 1) * folds.size()));
    c.scores.push_back(pool(of_lambda, p.cost.residual).cost);
  }
  const std::size_t best = best_index(c.scores);
  c.lambda = c.lambdas[best];
  spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
              "lambda auto: {} ({} folds) x {} lambdas -> lambda {} (held-out cost {:.4g}; lambda "
              "0: {:.4g})",
              c.split, c.folds, c.lambdas.size(), c.lambda, c.scores[best], c.scores[0]);
  return c;
}

}  // namespace perfit::fit
