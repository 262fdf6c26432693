#include "perfit/fit/bootstrap.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/rng.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/fit/spread.hpp"

namespace perfit::fit {

namespace {

// Row multiplicities of replicate b: draw `units` units (configurations or rows) with replacement.
std::vector<double> draw(std::uint64_t seed, std::size_t b,
                         const std::vector<std::size_t>& unit_of_row, std::size_t units) {
  Rng rng = Rng::derive(seed, 0xB007 + b);
  std::vector<double> times(units, 0.0);
  for (std::size_t k = 0; k < units; ++k) times[rng.below(units)] += 1.0;
  std::vector<double> w(unit_of_row.size());
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = times[unit_of_row[i]];
  return w;
}

struct Replicates {
  const FitProblem& p;
  de::FitOptions options;
  std::vector<std::size_t> unit_of_row;
  std::size_t units = 0;
  const std::function<bool()>& interrupted;

  // out: [finished, params...]
  void run(std::size_t b, double* out) const {
    if (interrupted && interrupted()) return;
    const std::vector<double> times = draw(options.de.seed, b, unit_of_row, units);
    std::vector<bool> keep(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) keep[i] = times[i] > 0.0;
    FitProblem q = p;
    q.rows = std::make_shared<const data::MeasurementTable>(data::select_rows(*p.rows, keep));
    q.weights.resize(static_cast<Eigen::Index>(q.rows->rows()));
    Eigen::Index k = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (keep[i]) {
        q.weights(k) =
            times[i] * (p.weights.size() ? p.weights(static_cast<Eigen::Index>(i)) : 1.0);
        ++k;
      }
    }
    q.quiet = true;
    q.bootstrap = 0;
    de::FitOptions o = options;
    o.de.seed = options.de.seed + 1 + b;
    try {
      const FitReport r = fit(q, o, {}, island::serial_layout());
      if (!std::isfinite(r.cost)) throw DataError("no finite cost");
      out[0] = 1.0;
      for (Eigen::Index j = 0; j < r.params.size(); ++j) out[1 + j] = r.params(j);
    } catch (const Error& e) {
      spdlog::warn("bootstrap replicate {}: the refit failed ({}); left out", b, e.what());
    }
  }
};

}  // namespace

std::pair<double, double> percentile_interval(std::vector<double> v, double ci) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    const double frac = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] + frac * (v[i + 1] - v[i]) : v[i];
  };
  return {at((1.0 - ci) / 2.0), at((1.0 + ci) / 2.0)};
}

Eigen::MatrixXd replicate_predictions(const model::Evaluator& ev,
                                      const std::vector<std::vector<double>>& replicates) {
  const std::size_t refits = replicates.empty() ? 0 : replicates.front().size();
  Eigen::MatrixXd pred(static_cast<Eigen::Index>(ev.rows()), static_cast<Eigen::Index>(refits));
  Eigen::VectorXd x(static_cast<Eigen::Index>(replicates.size()));
  for (std::size_t b = 0; b < refits; ++b) {
    for (std::size_t k = 0; k < replicates.size(); ++k)
      x(static_cast<Eigen::Index>(k)) = replicates[k][b];
    pred.col(static_cast<Eigen::Index>(b)) = ev.predict(x);
  }
  return pred;
}

PredictionInterval prediction_interval(const model::Evaluator& ev,
                                       const std::vector<std::vector<double>>& replicates,
                                       double ci) {
  const std::size_t refits = replicates.empty() ? 0 : replicates.front().size();
  const auto rows = static_cast<Eigen::Index>(ev.rows());
  const Eigen::MatrixXd pred = replicate_predictions(ev, replicates);
  PredictionInterval out{Eigen::VectorXd(rows), Eigen::VectorXd(rows)};
  std::vector<double> v(refits);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (std::size_t b = 0; b < refits; ++b) v[b] = pred(i, static_cast<Eigen::Index>(b));
    const auto [lo, hi] = refits ? percentile_interval(v, ci) : std::pair{0.0, 0.0};
    out.lo(i) = lo;
    out.hi(i) = hi;
  }
  return out;
}

BootstrapResult bootstrap(const FitProblem& p, const de::FitOptions& options,
                          const Eigen::VectorXd& best_unit, const island::IslandLayout& L,
                          const std::function<bool()>& interrupted) {
  FitProblem whole = p;
  whole.forward_check = false;
  if (L.island_size > 1) whole.rows = gather_rows(*p.rows, L.island_comm.get());
  BootstrapResult res;
  res.requested = p.bootstrap;
  res.ci = p.ci;
  std::size_t configs = 0;
  std::vector<std::size_t> unit_of_row =
      data::configuration_ids(*whole.rows, p.model->columns_used(), configs);
  const bool by_configuration = configs < whole.rows->rows();
  if (!by_configuration) {
    for (std::size_t i = 0; i < unit_of_row.size(); ++i) unit_of_row[i] = i;
  }
  res.resampled = by_configuration ? "configuration" : "row";
  de::FitOptions o = options;
  o.progress_every = 0;
  o.de.x0 = {best_unit};  // each refit starts from the fit's best: fewer generations, same optimum
  const Replicates reps{whole, o, unit_of_row, by_configuration ? configs : whole.rows->rows(),
                        interrupted};
  spdlog::log(p.quiet ? spdlog::level::debug : spdlog::level::info,
              "bootstrap: {} refits on {} resampled by {} ({} of them), spread over {} rank(s)",
              p.bootstrap, "rows", res.resampled, by_configuration ? configs : whole.rows->rows(),
              L.world_size);
  const std::size_t n = p.model->n_params();
  const std::vector<double> packed = spread(L.world, std::vector<std::size_t>(p.bootstrap, n + 1),
                                            [&](std::size_t b, double* out) { reps.run(b, out); });
  std::vector<Eigen::Index> done;
  for (std::size_t b = 0; b < p.bootstrap; ++b) {
    if (packed[b * (n + 1)] != 0.0) done.push_back(static_cast<Eigen::Index>(b));
  }
  res.replicates.resize(static_cast<Eigen::Index>(done.size()), static_cast<Eigen::Index>(n));
  for (std::size_t r = 0; r < done.size(); ++r) {
    for (std::size_t j = 0; j < n; ++j) {
      res.replicates(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) =
          packed[static_cast<std::size_t>(done[r]) * (n + 1) + 1 + j];
    }
  }
  if (done.size() < p.bootstrap) {
    spdlog::warn(
        "bootstrap: {} of {} refits finished (the others failed or were interrupted); the "
        "intervals "
        "rest on those",
        done.size(), p.bootstrap);
  }
  res.lo.resize(static_cast<Eigen::Index>(n));
  res.hi.resize(static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j) {
    const auto col = res.replicates.col(static_cast<Eigen::Index>(j));
    if (col.size() == 0) {
      res.lo(static_cast<Eigen::Index>(j)) = res.hi(static_cast<Eigen::Index>(j)) =
          std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const auto [lo, hi] = percentile_interval(std::vector<double>(col.begin(), col.end()), p.ci);
    res.lo(static_cast<Eigen::Index>(j)) = lo;
    res.hi(static_cast<Eigen::Index>(j)) = hi;
  }
  return res;
}

}  // namespace perfit::fit
