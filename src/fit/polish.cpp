#include "polish.hpp"

#include <cmath>

#include "perfit/de/levenberg_marquardt.hpp"
#include "perfit/de/newton_polish.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::fit::detail {

namespace {

// Under variable projection the cost is a smooth function of the few searched params, with
// the linear ones exact at every point: a Newton polish there costs a few batched passes over
// the rows where Levenberg-Marquardt in the full space pays a Jacobian of every param.
constexpr std::size_t kNewtonPolishDims = 8;

// Rank 0's cost, point and one flag on every rank: a polish on every island starts from rank 0's
// point (so that every rank takes the steps a serial run takes), and everyone takes its answer.
void take_rank0s(FitReport& r, bool& flag, const island::IslandLayout& L, const char* what) {
  double head[2] = {r.cost, flag ? 1.0 : 0.0};
  mpi::check(MPI_Bcast(head, 2, MPI_DOUBLE, 0, L.world), what);
  mpi::check(MPI_Bcast(r.unit.data(), static_cast<int>(r.unit.size()), MPI_DOUBLE, 0, L.world),
             what);
  r.cost = head[0];
  flag = head[1] != 0.0;
}

}  // namespace

// Islands of one rank each hold every row: a wide Jacobian's columns (the polish's,
// identifiability's) are shared among them, each rank computing a part (a joint fit's 100
// searched params: 100 projected solves per Jacobian of the polish). A narrow one stays on
// island 0: summing 1e6 rows x 6 columns took 21-47 ms on 2 ranks, its 12 predictions ~24 ms.
ColumnSplit world_columns(const island::IslandLayout& L, std::size_t columns) {
  if (L.island_size != 1 || L.n_islands < 2 || columns < kMinSplitColumns) return {};
  return {L.world_rank, L.world_size, [&L](double* data, std::size_t n) {
            mpi::check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                                     L.world),
                       "MPI_Allreduce (Jacobian columns)");
          }};
}

// Island 0 polishes (its ranks share the rows), or every island when the Jacobian's columns are
// shared among them; everyone then takes rank 0's answer.
void polish(FitReport& r, const model::Evaluator& ev, FitObjective& objective,
            const model::Reducer& sum, double weight, const island::IslandLayout& L) {
  const model::Model& m = ev.model();
  // Every param linear and solved: the projection's bounded least squares is the fit's minimum,
  // which no polish can lower (a selection over 10^4 sets spent 3% here for nothing).
  const bool solved = objective.projected() && objective.dim() == 0;
  const bool newton =
      objective.projected() && objective.dim() > 0 && objective.dim() <= kNewtonPolishDims;
  const bool projected = objective.projected() && objective.dim() > 0;
  const ColumnSplit columns = solved || newton
                                  ? ColumnSplit{}
                                  : world_columns(L, projected ? objective.dim() : m.n_params());
  if (columns.split()) take_rank0s(r, r.checkpointed, L, "MPI_Bcast (polish start)");
  if (std::isfinite(r.cost) && !r.checkpointed && !solved && (L.island == 0 || columns.split())) {
    Eigen::VectorXd u;
    if (newton) {
      Eigen::VectorXd start(1);
      const Eigen::VectorXd u0 = objective.search_unit(r.unit);
      objective(u0, start);  // the projected cost, which the Newton steps compare against
      const de::NewtonResult nr = de::newton_polish(std::ref(objective), u0, start(0));
      r.polish_iterations = nr.iterations;
      u = objective.full_unit(nr.u);
    } else {
      const de::SumReducer reduce = [&](double* data, std::size_t n) {
        if (sum) sum(data, n);
      };
      // Projected: Levenberg-Marquardt on the residuals as a function of the searched params, the
      // linear ones solved at every point (Golub & Pereyra): a Jacobian of those few columns.
      const de::ResidualFn residuals = [&](const Eigen::VectorXd& x, Eigen::VectorXd& res) {
        res = ev.residual_vector(m.params_from_unit(projected ? objective.full_unit(x) : x), weight,
                                 L.island_rank == 0);
      };
      de::LmOptions lo;
      if (projected) lo.ftol = 1e-10;
      const de::LmResult lm =
          de::levenberg_marquardt(residuals, projected ? objective.search_unit(r.unit) : r.unit, lo,
                                  columns.split() ? de::SumReducer{} : reduce, columns);
      r.polish_iterations = lm.iterations;
      u = projected ? objective.full_unit(lm.u) : lm.u;
    }
    Eigen::VectorXd one(1);
    objective.full_costs(
        u, one);  // the true cost, judged by the evaluator, not the polish's objective
    if (one(0) < r.cost) {
      r.unit = u;
      r.cost = one(0);
      r.polish_improved = true;
    }
  }
  if (L.world_size > 1) take_rank0s(r, r.polish_improved, L, "MPI_Bcast (polished best)");
}

}  // namespace perfit::fit::detail
