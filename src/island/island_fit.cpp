#include "perfit/island/island_fit.hpp"

#include "perfit/de/levenberg_marquardt.hpp"

namespace perfit::island {

IslandFitResult fit_on_islands(const IslandLayout& L, const model::Evaluator& ev,
                               const de::FitOptions& options, const IslandOptions& islands,
                               const std::function<void(const EpochReport&)>& on_epoch) {
  const model::Model& m = ev.model();
  const MPI_Comm ic = L.island_comm.get();
  double weight = ev.weight_sum();
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, &weight, 1, MPI_DOUBLE, MPI_SUM, ic), "MPI_Allreduce (weights)");
  const double lambda = ev.cost_options().lambda;

  Eigen::MatrixXd params;
  const de::BatchObjective objective = [&](const Eigen::MatrixXd& unit, Eigen::VectorXd& costs) {
    params.resize(unit.rows(), unit.cols());
    for (Eigen::Index j = 0; j < unit.cols(); ++j) params.col(j) = m.params_from_unit(unit.col(j));
    ev.residual_sums(params, costs);
    if (L.island_size > 1) {
      mpi::check(MPI_Allreduce(MPI_IN_PLACE, costs.data(), static_cast<int>(costs.size()), MPI_DOUBLE,
                               MPI_SUM, ic),
                 "MPI_Allreduce (island costs)");
    }
    for (Eigen::Index j = 0; j < costs.size(); ++j) {
      costs(j) = costs(j) / weight + lambda * ev.penalty(params.col(j));
    }
  };

  IslandFitResult r;
  r.islands = run_islands(L, m.n_params(), options.de, islands, objective, on_epoch);
  de::FitResult& f = r.fit;
  f.de.reason = r.islands.reason;
  f.de.message = r.islands.message;
  f.de.best = r.islands.best;
  f.de.best_cost = r.islands.best_cost;
  f.de.generations = r.islands.generations;
  f.de.evaluations = r.islands.evaluations;
  f.de.seconds = r.islands.seconds;
  f.history = r.islands.history;
  f.unit = r.islands.best;
  f.cost = f.cost_before_polish = r.islands.best_cost;

  // Island 0 polishes (its ranks share the rows); everyone then takes its answer.
  if (options.polish && std::isfinite(f.cost) && L.island == 0) {
    const de::ResidualFn residuals = [&](const Eigen::VectorXd& u, Eigen::VectorXd& res) {
      res = ev.residual_vector(m.params_from_unit(u), weight, L.island_rank == 0);
    };
    const de::SumReducer reduce = [&](double* data, std::size_t n) {
      if (L.island_size > 1) {
        mpi::check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, ic),
                   "MPI_Allreduce (polish)");
      }
    };
    const de::LmResult lm = de::levenberg_marquardt(residuals, f.unit, {}, reduce);
    f.polish_iterations = lm.iterations;
    Eigen::VectorXd one(1);
    objective(lm.u, one);  // the true cost (allreduced in the island)
    if (one(0) < f.cost) {
      f.unit = lm.u;
      f.cost = one(0);
      f.polish_improved = true;
    }
  }
  double polished[2] = {f.cost, f.polish_improved ? 1.0 : 0.0};
  mpi::check(MPI_Bcast(polished, 2, MPI_DOUBLE, 0, L.world), "MPI_Bcast (polish)");
  mpi::check(MPI_Bcast(f.unit.data(), static_cast<int>(f.unit.size()), MPI_DOUBLE, 0, L.world),
             "MPI_Bcast (polished best)");
  f.cost = polished[0];
  f.polish_improved = polished[1] != 0.0;
  f.params = m.params_from_unit(f.unit);
  f.at_bound.resize(m.n_params());
  for (std::size_t k = 0; k < m.n_params(); ++k) {
    const double u = f.unit(static_cast<Eigen::Index>(k));
    f.at_bound[k] = u < 1e-6 || u > 1.0 - 1e-6;
  }
  // Metrics over all rows: island 0's slices add up to the whole set.
  model::MetricSums s = model::metric_sums(ev.predict(f.params), ev.measured());
  if (L.island_size > 1) {
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &s.n, model::MetricSums::kSummed, MPI_DOUBLE, MPI_SUM, ic),
               "MPI_Allreduce (metrics)");
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &s.max_rel, 1, MPI_DOUBLE, MPI_MAX, ic), "MPI_Allreduce (max)");
  }
  f.metrics = model::metrics_from_sums(s);
  if (L.island == 0) {  // island 0's slices add up to the whole set
    model::Reducer sum;
    if (L.island_size > 1) {
      sum = [&](double* data, std::size_t n) {
        mpi::check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, ic),
                   "MPI_Allreduce (identifiability)");
      };
    }
    f.identifiability = model::check_identifiability(ev, f.params, sum);
  }
  f.seconds = r.islands.seconds;
  f.evals_per_second = static_cast<double>(f.de.evaluations) / std::max(f.de.seconds, 1e-9);
  return r;
}

}  // namespace perfit::island
