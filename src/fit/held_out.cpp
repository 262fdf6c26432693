#include "perfit/fit/held_out.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/spread.hpp"
#include "perfit/model/compression.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::fit {

namespace {

// The last fold is the step most like the next one: with the right model the earlier folds,
// trained on fewer scales, miss by more than the next step will; with a model that misses the
// shape the error grows with the distance, and so one step further. Measured in
// bench/extrapolation_bench.py (500 series per family, two seeds): the rms over every fold, or
// the last when larger, covered comm_ring's next scale in 97-98% of its 90% intervals and
// contention's in 81%; this, 95-96% and 81-82%.
constexpr double kGrowthCap = 3.0;
constexpr double kGrowthRange[2] = {0.0, 2.0};
// The forward check's refits: the largest values of the scale column held out, at most this
// many (one dof each; each refit copies its training rows).
constexpr std::size_t kForwardFolds = 4;
// More distinct values than this: not a scale (a continuous column's "steps" are noise).
constexpr std::size_t kMaxScales = 64;

// rms ln(pred/meas) of ev's predictions with params over the fold's test rows (NaN without any).
double log_rms_on(const Eigen::VectorXd& pred, const Eigen::VectorXd& y, const data::Fold& fold) {
  double ss = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < fold.test.size(); ++i) {
    if (!fold.test[i]) continue;
    const double e = std::log(pred(static_cast<Eigen::Index>(i)) / y(static_cast<Eigen::Index>(i)));
    ss += e * e;
    ++n;
  }
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(ss / static_cast<double>(n));
}

// Forward folds (data/splits.hpp's forward:COLUMN) of the given values only: train below each,
// test at it.
std::vector<data::Fold> forward_folds(const data::MeasurementTable& t, const std::string& column,
                                      const std::vector<double>& values) {
  const std::vector<double> x = t.column(column).to_double();
  std::vector<data::Fold> folds;
  for (const double v : values) {
    data::Fold f;
    f.name = column + "=" + format_g(v);
    f.train.resize(x.size());
    f.test.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      f.train[i] = x[i] < v;
      f.test[i] = x[i] == v;
      f.train_rows += f.train[i] ? 1 : 0;
      f.test_rows += f.test[i] ? 1 : 0;
    }
    folds.push_back(std::move(f));
  }
  return folds;
}

// Refits on distinct configurations (model/compression.hpp) reach the optimum refits on the
// rows would: with squared residuals, no penalty (its weight against the data term would
// change), and the scale column among the model's (the folds split the configurations by it).
bool packed_rows_apply(const FitProblem& p, const std::string& column) {
  const auto& used = p.model->columns_used();
  return p.compress && p.cost.residual != model::Residual::ape && p.cost.lambda == 0.0 &&
         !p.cost.lambda_auto && std::find(used.begin(), used.end(), column) != used.end();
}

// The rows as configurations where that applies and saves (at most half as many).
std::optional<model::CompressedRows> packed_rows(const FitProblem& p, const std::string& column) {
  if (!packed_rows_apply(p, column)) return std::nullopt;
  const auto& used = p.model->columns_used();
  model::CompressedRows packed = model::compress_rows(
      *p.rows, used, p.cost,
      std::vector<double>(p.weights.data(), p.weights.data() + p.weights.size()));
  if (2 * packed.configurations > packed.rows) return std::nullopt;
  return packed;
}

// Each forward fold refitted on the configurations below its value (serially, on every rank
// alike: a few small fits), and judged on the rows at its value (all: over the folds' table), as
// fit_folds would.
std::vector<FoldFit> refits_on_configurations(
    const FitProblem& whole, const model::CompressedRows& packed, const std::string& column,
    const std::vector<data::Fold>& folds, const std::vector<double>& values,
    const model::Evaluator& all, const de::FitOptions& options) {
  const std::vector<double> at = packed.table.column(column).to_double();
  const Eigen::VectorXd& y = all.measured();
  std::vector<FoldFit> out;
  for (std::size_t j = 0; j < folds.size(); ++j) {
    const data::Fold& fold = folds[j];
    std::vector<bool> below(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) below[i] = at[i] < values[j];
    FitProblem q = whole;
    q.rows = std::make_shared<const data::MeasurementTable>(data::select_rows(packed.table, below));
    q.cost.weight_column = model::kCompressedWeight;
    q.weights = {};
    q.bootstrap = 0;
    q.forward_check = false;
    q.quiet = true;
    FoldFit f;
    f.fold = fold.name;
    f.train_rows = q.rows->rows();  // configurations
    f.test_rows = fold.test_rows;
    try {
      const FitReport r = fit(q, options, {}, island::serial_layout());
      f.failed = !std::isfinite(r.cost);
      f.params = r.params;
      f.train_cost = r.cost;
      f.generations = r.generations;
    } catch (const Error& e) {
      spdlog::warn("forward check, {}: the refit failed: {}", fold.name, e.what());
      f.failed = true;
    }
    if (!f.failed) {
      const Eigen::VectorXd pred = all.predict(f.params);
      f.predicted.resize(static_cast<Eigen::Index>(fold.test_rows));
      f.measured.resize(static_cast<Eigen::Index>(fold.test_rows));
      Eigen::Index k = 0;
      for (std::size_t i = 0; i < fold.test.size(); ++i) {
        if (!fold.test[i]) continue;
        f.predicted(k) = pred(static_cast<Eigen::Index>(i));
        f.measured(k++) = y(static_cast<Eigen::Index>(i));
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

double fold_log_rms(const FoldFit& f) {
  return std::sqrt((f.predicted.array() / f.measured.array()).log().square().mean());
}

ChoiceSpread last_fold_spread(const std::vector<FoldFit>& fits, const std::string& what) {
  const bool any_failed =
      std::any_of(fits.begin(), fits.end(), [](const FoldFit& f) { return f.failed; });
  if (any_failed || fits.empty()) return {};
  const std::size_t n = fits.size();
  const double last = fold_log_rms(fits.back());
  if (!std::isfinite(last)) return {};
  const double before = n > 1 ? fold_log_rms(fits[n - 2]) : 0.0;
  const double growth = before > 0.0 ? std::clamp(last / before, 1.0, kGrowthCap) : 1.0;
  ChoiceSpread out{last * growth, n, what + ": the last one's"};
  if (growth > 1.0) out.how += ", x" + format_g(growth, 3) + " as it grew from the one before";
  return out;
}

double distance_growth(const model::Evaluator& ev, const std::vector<FoldFit>& fits,
                       const std::vector<const data::Fold*>& held,
                       const std::vector<std::size_t>& at) {
  const Eigen::VectorXd& y = ev.measured();
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t k = 0; k + 1 < held.size() && k < fits.size(); ++k) {
    const FoldFit& f = fits[k];
    const double e1 = fold_log_rms(f);
    if (f.failed || !(e1 > 0.0) || !f.params.allFinite()) continue;
    const Eigen::VectorXd pred = ev.predict(f.params);
    for (std::size_t j = k + 1; j < held.size(); ++j) {
      const double ed = log_rms_on(pred, y, *held[j]);
      if (!std::isfinite(ed) || !(ed > 0.0)) continue;
      const double x = std::log(
          static_cast<double>(at[j] - at[k] + 1));  // steps beyond fold k's training scales
      sxy += x * std::log(ed / e1);
      sxx += x * x;
    }
  }
  if (!(sxx > 0.0)) return kDefaultGrowth;
  return std::clamp(sxy / sxx, kGrowthRange[0], kGrowthRange[1]);
}

// A streamed fit's configurations at or beyond `from`, each as two rows at exp(mean ln y +- sd
// ln y): their squared log errors sum to the configuration's rows' over its count, so with
// equal repeats the held-out errors are the rows' (the rows themselves were never kept).
data::MeasurementTable spread_rows(const model::CompressedRows& c, const std::string& column,
                                   double from) {
  const std::vector<double> x = c.table.column(column).to_double();
  std::vector<std::size_t> twice;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] >= from) twice.insert(twice.end(), {i, i});
  }
  data::MeasurementTable out = c.table.take_rows(twice);
  auto& cols = out.columns();
  std::vector<double>& y = std::find_if(cols.begin(), cols.end(), [&](const data::Column& col) {
                             return col.name() == c.table.target();
                           })->f64();
  for (std::size_t k = 0; k < twice.size(); ++k) {
    const std::size_t i = twice[k];
    const double sd = c.moments.n[i] > 0.0 ? std::sqrt(c.moments.log_m2[i] / c.moments.n[i]) : 0.0;
    y[k] = std::exp(c.moments.log_mean[i] + (k % 2 == 0 ? sd : -sd));
  }
  return out;
}

double scale_step_log(const data::MeasurementTable& rows, const std::string& column) {
  if (column.empty() || !rows.find(column) || !rows.column(column).is_numeric())
    return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = data::distinct_values(rows.column(column));
  if (v.size() < 2 || !(v[v.size() - 2] > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return std::log(v.back() / v[v.size() - 2]);
}

ChoiceSpread forward_check(const FitProblem& p, const de::FitOptions& options,
                           const Eigen::VectorXd& best_unit, const island::IslandLayout& L,
                           const model::CompressedRows* fitted) {
  ChoiceSpread none;
  none.how = "no forward check: ";
  FitProblem whole = p;
  if (L.island_size > 1) whole.rows = gather_rows(*p.rows, L.island_comm.get());
  const std::string column = p.scale.empty() ? model::scale_column(*p.model) : p.scale;
  const data::MeasurementTable& rows = *whole.rows;
  if (column.empty() || !rows.find(column) || !rows.column(column).is_numeric()) {
    none.how += "no numeric scale column";
    return none;
  }
  const std::vector<double> scales = data::distinct_values(rows.column(column));
  if (scales.size() < 3) {
    none.how += column + " has " + std::to_string(scales.size()) + " value(s), three are needed";
    return none;
  }
  if (scales.size() > kMaxScales) {
    none.how += column + " has " + std::to_string(scales.size()) +
                " distinct values, more than the " + std::to_string(kMaxScales) +
                " a scale column (worker counts) has; --scale names another";
    return none;
  }
  const std::vector<double> values(
      scales.end() - static_cast<std::ptrdiff_t>(std::min(scales.size() - 2, kForwardFolds)),
      scales.end());  // each fold's held-out value, from the third up
  de::FitOptions o = options;
  o.de.x0 = {
      best_unit};  // each refit starts from the fit's best: the optimum the data near it lead to
  // The fit's own compression when it holds every row (not a rank's slice), else made here.
  const bool reuse = fitted && L.island_size == 1 && packed_rows_apply(whole, column);
  const std::optional<model::CompressedRows> packed =
      reuse ? std::nullopt : packed_rows(whole, column);
  const model::CompressedRows* configurations = reuse ? fitted : packed ? &*packed : nullptr;
  // Refits on configurations are judged on the rows at the held-out values only.
  std::optional<data::MeasurementTable> tail;
  if (reuse && !fitted->moments.empty()) {
    tail = spread_rows(*fitted, column, values.front());
  } else if (configurations) {
    const std::vector<double> x = rows.column(column).to_double();
    std::vector<bool> keep(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) keep[i] = x[i] >= values.front();
    tail = data::select_rows(rows, keep);
  }
  const data::MeasurementTable& judged = tail ? *tail : rows;
  const std::vector<data::Fold> folds = forward_folds(judged, column, values);
  model::CostOptions plain;
  plain.residual = p.cost.residual;
  const model::Evaluator all(*p.model, judged, plain);
  std::vector<FoldFit> fits;
  std::vector<const data::Fold*> held;
  std::vector<std::size_t> at;
  for (std::size_t k = 0; k < folds.size(); ++k) {
    held.push_back(&folds[k]);
    at.push_back(k);
  }
  if (configurations) {
    fits = refits_on_configurations(whole, *configurations, column, folds, values, all, o);
  } else {
    std::vector<FoldJob> jobs;
    for (const auto& f : folds) jobs.push_back({whole, &f});
    fits = fit_folds(jobs, o, L.world, false);  // fit_folds' refits never check themselves
  }
  ChoiceSpread out = last_fold_spread(
      fits, "forward check: refitted below each of the " + std::to_string(folds.size()) +
                " largest value(s) of " + column + ", its errors predicting them");
  if (out.dof == 0) {
    none.how += "a refit failed";
    return none;
  }
  out.growth = distance_growth(all, fits, held, at);
  out.step_log = scale_step_log(rows, column);
  spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
              "forward check: refitted below each of the {} largest value(s) of {}, the error one "
              "step out is {:.3g}% "
              "(rms ln), growing as distance^{:.2g} (--no-forward-check: skip it)",
              folds.size(), column, 100.0 * out.log_sd, out.growth);
  return out;
}

}  // namespace perfit::fit
