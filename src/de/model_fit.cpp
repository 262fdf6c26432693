#include "perfit/de/model_fit.hpp"

#include <chrono>
#include <cmath>

#include "perfit/de/levenberg_marquardt.hpp"

namespace perfit::de {

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

FitResult fit_model(const model::Evaluator& ev, const FitOptions& options,
                    const FitProgress& progress) {
  const model::Model& m = ev.model();
  const std::size_t dim = m.n_params();
  const double t0 = now_s();
  Eigen::MatrixXd params;
  const BatchObjective objective = [&](const Eigen::MatrixXd& unit, Eigen::VectorXd& costs) {
    params.resize(unit.rows(), unit.cols());
    for (Eigen::Index j = 0; j < unit.cols(); ++j) params.col(j) = m.params_from_unit(unit.col(j));
    ev.costs(params, costs);
  };
  DeOptimizer opt(dim, options.de, objective);
  ProgressFn de_progress;
  if (progress) {
    de_progress = [&](const DeState& s, double secs) {
      progress(s.generation, s.evaluations, s.history.back(), secs);
    };
  }
  FitResult r;
  r.de = opt.run(de_progress, options.progress_every);
  r.history = opt.state().history;
  r.unit = r.de.best;
  r.cost = r.cost_before_polish = r.de.best_cost;
  if (options.polish && std::isfinite(r.cost)) {
    const ResidualFn residuals = [&](const Eigen::VectorXd& u, Eigen::VectorXd& res) {
      res = ev.residual_vector(m.params_from_unit(u));
    };
    const LmResult lm = levenberg_marquardt(residuals, r.unit);
    r.polish_iterations = lm.iterations;
    // Judge by the evaluator's own cost, not the LM objective, before accepting.
    const double polished = ev.cost(m.params_from_unit(lm.u));
    if (polished < r.cost) {
      r.unit = lm.u;
      r.cost = polished;
      r.polish_improved = true;
    }
  }
  r.params = m.params_from_unit(r.unit);
  r.at_bound.resize(dim);
  for (std::size_t k = 0; k < dim; ++k) {
    const double u = r.unit(static_cast<Eigen::Index>(k));
    r.at_bound[k] = u < 1e-6 || u > 1.0 - 1e-6;
  }
  r.metrics = model::compute_metrics(ev.predict(r.params), ev.measured());
  r.identifiability = model::check_identifiability(ev, r.params);
  r.seconds = now_s() - t0;
  r.evals_per_second = static_cast<double>(r.de.evaluations) / std::max(r.de.seconds, 1e-9);
  return r;
}

}  // namespace perfit::de
