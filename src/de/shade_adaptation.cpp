// The SHADE family's adaptation, between generations: the success-history memories of F and CR
// (Tanabe & Fukunaga 2013; jSO's averaging, Brest et al. 2017) and L-SHADE's linear population
// size reduction (Tanabe & Fukunaga 2014). Members of DeOptimizer (de/optimizer.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "perfit/de/optimizer.hpp"

namespace perfit::de {

void DeOptimizer::update_memories(const std::vector<double>& sf, const std::vector<double>& scr,
                                  const std::vector<double>& df) {
  if (sf.empty()) return;
  const double total = std::accumulate(df.begin(), df.end(), 0.0);
  double f2 = 0, f1 = 0, c2 = 0, c1 = 0, cmean = 0, cmax = 0;
  for (std::size_t k = 0; k < sf.size(); ++k) {
    const double w = total > 0 ? df[k] / total : 1.0 / static_cast<double>(sf.size());
    f2 += w * sf[k] * sf[k];
    f1 += w * sf[k];
    c2 += w * scr[k] * scr[k];
    c1 += w * scr[k];
    cmean += w * scr[k];
    cmax = std::max(cmax, scr[k]);
  }
  const bool jso = options_.strategy == Strategy::jso;
  const std::size_t slots = state_.mem_f.size() - (jso && state_.mem_f.size() > 1 ? 1 : 0);
  const std::size_t k = state_.mem_pos % slots;
  // Weighted Lehmer mean for F (all), and for CR in L-SHADE/jSO; SHADE averages CR.
  double mf = f1 > 0 ? f2 / f1 : state_.mem_f[k];
  double mcr = options_.strategy == Strategy::shade ? cmean : (c1 > 0 ? c2 / c1 : 0.0);
  if (options_.strategy != Strategy::shade && (cmax == 0.0 || state_.mem_cr[k] == kTerminalCr)) {
    mcr = kTerminalCr;
  }
  if (jso) {  // jSO averages the new mean with the old entry
    mf = 0.5 * (mf + state_.mem_f[k]);
    if (mcr != kTerminalCr) mcr = 0.5 * (mcr + state_.mem_cr[k]);
  }
  state_.mem_f[k] = mf;
  state_.mem_cr[k] = mcr;
  state_.mem_pos = (state_.mem_pos + 1) % slots;
}

// L-SHADE's linear population size reduction: NP falls from NP_init to min_population as the
// evaluation budget is spent; the worst individuals go.
void DeOptimizer::reduce_population() {
  const std::size_t np = static_cast<std::size_t>(state_.pop.cols());
  const double frac = std::min(1.0, static_cast<double>(state_.evaluations) /
                                        static_cast<double>(std::max<std::size_t>(1, max_nfe())));
  const auto target = static_cast<std::size_t>(
      std::lround(static_cast<double>(state_.np_init) -
                  frac * static_cast<double>(state_.np_init - options_.min_population)));
  const std::size_t new_np = std::max(options_.min_population, std::min(np, target));
  if (new_np >= np) return;
  std::vector<std::size_t> order(np);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return state_.cost(a) < state_.cost(b); });
  order.resize(new_np);
  std::sort(order.begin(), order.end());  // keep survivors in their original order
  Eigen::MatrixXd pop(state_.pop.rows(), static_cast<Eigen::Index>(new_np));
  Eigen::VectorXd cost(static_cast<Eigen::Index>(new_np));
  for (std::size_t k = 0; k < new_np; ++k) {
    pop.col(static_cast<Eigen::Index>(k)) = state_.pop.col(static_cast<Eigen::Index>(order[k]));
    cost(static_cast<Eigen::Index>(k)) = state_.cost(static_cast<Eigen::Index>(order[k]));
  }
  state_.pop = std::move(pop);
  state_.cost = std::move(cost);
  const double rate = static_cast<double>(state_.archive.cols()) / static_cast<double>(np);
  const auto cap = static_cast<std::size_t>(std::lround(rate * static_cast<double>(new_np)));
  while (state_.archive_used > cap) {  // drop random archive members
    const std::size_t k = rng_.below(state_.archive_used);
    state_.archive.col(static_cast<Eigen::Index>(k)) =
        state_.archive.col(static_cast<Eigen::Index>(state_.archive_used - 1));
    --state_.archive_used;
  }
  state_.archive.conservativeResize(Eigen::NoChange, static_cast<Eigen::Index>(cap));
}

}  // namespace perfit::de
