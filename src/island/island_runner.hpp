// The island runner, shared by the files that implement it: island_model.cpp (the epoch loop,
// stop decisions, the final agreement), island_exchange.cpp (migration, sync and async) and
// island_resume.cpp (checkpoints and resume). Private to src/island.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "perfit/core/error.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/island/migration.hpp"
#include "perfit/island/topology.hpp"

namespace perfit::island::detail {

using mpi::check;
inline constexpr int kMigrantTag = 7101;

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline bool hard_stop(de::StopReason r) {
  return r != de::StopReason::none && r != de::StopReason::converged;
}

// Per-island DE options: heterogeneous list or the base, with the island's own seed.
inline de::DeOptions options_for(const de::DeOptions& base, const IslandOptions& o, int island, int n_islands,
                                  std::size_t dim) {
  de::DeOptions d = o.per_island.empty() ? base : o.per_island[static_cast<std::size_t>(island) % o.per_island.size()];
  d.seed = island_seed(base.seed, island);
  d.population = population_per_island(d, o, n_islands, dim);
  return d;
}

class Runner {
 public:
  Runner(const IslandLayout& L, std::size_t dim, const de::DeOptions& base,
         const IslandOptions& o, const de::BatchObjective& f, const RunHooks& h)
      : L_(L), dim_(dim), o_(o), h_(h), opt_(dim, options_for(base, o, L.island, L.n_islands, dim), f),
        seed_(base.seed), stride_(1 + dim) {}

  IslandSummary run();

 private:
  de::StopReason island_status();
  void evolve_epoch();
  void migrate_sync(std::size_t epoch);
  void post_async(std::size_t epoch);
  std::vector<double> poll_async();
  void drain_async();
  void apply(const std::vector<double>& arrivals, std::size_t epoch);
  std::vector<double> emigrants(std::size_t epoch);
  void start(IslandSummary& S, std::size_t& epoch, double& t0);
  void checkpoint(const IslandSummary& S, std::size_t epochs_done, double t0);
  void finish(IslandSummary& S);

  const IslandLayout& L_;
  std::size_t dim_;
  const IslandOptions& o_;
  const RunHooks& h_;
  de::DeOptimizer opt_;
  std::uint64_t seed_;
  std::size_t stride_;
  std::size_t epoch_end_ = 0;  // generation the current epoch runs to
  de::StopReason status_ = de::StopReason::none;
  double migration_s_ = 0.0, vote_s_ = 0.0;  // this rank's time in the two collective phases
  std::size_t sent_ = 0, received_ = 0;
  // async bookkeeping (leaders)
  std::vector<std::vector<double>> send_buffers_;
  std::vector<MPI_Request> send_requests_;
  std::vector<long long> sent_to_, received_from_;
};

}  // namespace perfit::island::detail
