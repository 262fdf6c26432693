// The one entry point of every fit: serial, MPI islands, ranks sharing an island's rows, and
// later batch, validation folds and bootstrap. A serial fit is one island whose reductions do
// nothing; what differs between the ways of fitting is data (rows, per-row weights, layout),
// not code paths. DE over the unit cube of the params, then a bounded Levenberg-Marquardt
// polish kept only if it lowers the cost, then metrics and an identifiability check.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "perfit/de/fit_options.hpp"
#include "perfit/fit/choice_spread.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/model/compression.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/fit_summary.hpp"
#include "perfit/model/identifiability.hpp"
#include "perfit/model/metrics.hpp"
#include "perfit/model/separable.hpp"

namespace perfit::fit {

struct FitProblem {
  std::shared_ptr<const model::Model> model;
  std::shared_ptr<const data::MeasurementTable> rows;  // this rank's rows (its slice)
  model::CostOptions cost;
  Eigen::VectorXd weights;  // per row of `rows`; empty: all 1 (times cost.weight_column)
  unsigned threads = 1;
  // Evaluate each distinct configuration once when that pays (squared residuals only; the
  // result is the same up to rounding, model/compression.hpp); false: every row.
  bool compress = true;
  bool quiet = false;  // the engine's info lines at debug level (a batch runs many fits)
  // automatic: solve the linear constants per candidate, search only the others (variable
  // projection; squared residuals); off: search every constant.
  model::SeparableMode separable = model::SeparableMode::automatic;
  // The column of workers, for lambda: auto's leave-one-scale-out ("": model::scale_column).
  std::string scale{};
  // Refits on resampled rows after the fit (0: none) and the level of their percentile
  // intervals (fit/bootstrap.hpp).
  std::size_t bootstrap = 0;
  double ci = 0.95;
  // After the fit, refit without the largest scales and predict them (fit/held_out.hpp): the
  // extrapolation part of the fit's prediction intervals. Refits never check themselves.
  bool forward_check = false;
  // A joint fit's start (params), where every group was fitted alone: a seed of the search,
  // and where the search has more than kSearchFromStartDims params (one exponent per group of
  // a large study), the search itself: the polish descends from it (docs/joint.md). Empty: none.
  Eigen::VectorXd start{};
  // The identifiability check and the probes past the bounds after the fit; off where the
  // fit only predicts held-out rows (cross-validation folds).
  bool diagnose = true;
  // Rows compressed while they were read (job/streamed_rows.hpp: a slice larger than memory):
  // when `rows` is this table (weights in model::kCompressedWeight), the fit adds its offset,
  // normalises by its weight sum and takes its metrics from its moments. Refits on other rows
  // (folds, bootstrap) ignore it.
  std::shared_ptr<const model::CompressedRows> streamed{};
};

// More searched params than this, with a start: the fit polishes from the start, no DE.
inline constexpr std::size_t kSearchFromStartDims = 8;

// lambda: auto: the grid, the held-out cost of each lambda, and the one chosen.
struct LambdaChoice {
  std::string split;  // the cross-validation, e.g. "group:p" (leave-one-scale-out); "": not chosen
  std::size_t folds = 0;
  std::vector<double> lambdas, scores;  // scores: mean held-out residual over all folds
  double lambda = 0.0;
  std::string note;  // why no choice was possible (too few configurations), or ""
};

// --bootstrap B: the replicate fits and the percentile interval of every constant.
struct BootstrapResult {
  std::size_t requested = 0;  // B; 0: no bootstrap
  std::string resampled;      // "configuration" (repeats) or "row"
  double ci = 0.95;
  Eigen::MatrixXd replicates;  // one row per finished refit, one column per param
  Eigen::VectorXd lo, hi;      // per param, the (1-ci)/2 and (1+ci)/2 percentiles
};

// Why the fit stopped and what it found, like a Ceres Summary (cost, timing, metrics and noise:
// model::FitSummary).
struct FitReport : model::FitSummary {
  Eigen::VectorXd params;  // in the params' own units
  Eigen::VectorXd unit;    // in the unit cube
  std::vector<bool> at_bound;
  // Per param at a bound: the relative change of the cost with it moved past that bound (the
  // others kept); < 0 when the data pull it further, so widening can change the fit. NaN for
  // params inside their bounds.
  std::vector<double> past_bound;
  std::vector<bool> linear;  // per param: solved by least squares for each candidate
  int polish_iterations = 0;
  de::StopReason reason = de::StopReason::none;
  std::string message;
  std::size_t epochs = 0;
  int best_island = 0;
  model::Identifiability identifiability;
  bool checkpointed = false;  // interrupted and its state saved: resume instead of a result
  std::size_t rows = 0, configurations = 0;  // this rank's; configurations == rows: not compressed
  LambdaChoice lambda;                       // with cost.lambda_auto; the fit used lambda.lambda
  BootstrapResult bootstrap;
  ChoiceSpread forward;  // with FitProblem::forward_check: the refits' extrapolation error

  // Like Ceres' Summary: one line (why it stopped, cost, generations, seconds), and every
  // field on its own line with the params under `names` (param k when names is short).
  std::string brief_report() const;
  std::string full_report(const std::vector<std::string>& names = {}) const;
};

// The params the DE searches: all, or the nonlinear ones under variable projection (0: every
// param is linear and one bounded least-squares solve is the fit).
std::size_t search_dimension(const model::Model& m, const model::CostOptions& cost,
                             model::SeparableMode mode);

// Collective over layout.world (serial_layout(): no MPI at all). Every rank gets the report;
// with cost.lambda_auto, lambda is first chosen by cross-validation (fit/lambda_choice.hpp);
// an interrupted run stops at the next generation boundary with reason `interrupted` and,
// when it checkpointed, skips the polish (the resumed run will do it).
// Throws: ConfigError from invalid options; DataError when the rows weigh nothing.
FitReport fit(const FitProblem& problem, const de::FitOptions& options,
              const island::IslandOptions& islands, const island::IslandLayout& layout,
              const island::RunHooks& hooks = {});

}  // namespace perfit::fit
