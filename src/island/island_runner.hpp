// The island runner, shared by the files that implement it: island_model.cpp (the epoch loop,
// stop decisions, the final agreement), island_exchange.cpp (migration, sync and async) and
// island_resume.cpp (checkpoints and resume). Private to src/island.
#pragma once

#include <algorithm>
#include <array>
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

// An island's word in the epoch vote and, once reduced over the leaders, the job's answer.
struct Vote {
  bool hard_stop = false;    // this island must stop (reduced: any island)
  bool converged = false;    // this island converged (reduced: every island)
  bool interrupted = false;  // a signal reached this island (reduced: any island)
  double best = 0.0;         // this island's best cost (reduced: the lowest)
  double worst = 0.0;        // the same (reduced: the highest island best)

  static Vote of(de::StopReason st, double best) {
    return {detail::hard_stop(st), st == de::StopReason::converged,
            st == de::StopReason::interrupted, best, best};
  }
  bool stop() const { return hard_stop || converged; }
  // Five doubles that one MPI_MAX reduces: "every island converged" and "the lowest best"
  // travel negated.
  using Wire = std::array<double, 5>;
  Wire wire() const {
    return {hard_stop ? 1.0 : 0.0, converged ? -1.0 : 0.0, -best, worst, interrupted ? 1.0 : 0.0};
  }
  static Vote from_wire(const Wire& w) { return {w[0] > 0, -w[1] > 0, w[4] > 0, -w[2], w[3]}; }
};

// What an epoch's vote decided for the job.
enum class Step { go_on = 0, stop = 1, interrupted = 2 };

// Per-island DE options: heterogeneous list or the base, with the island's own seed.
inline de::DeOptions options_for(const de::DeOptions& base, const IslandOptions& o, int island,
                                 int n_islands, std::size_t dim) {
  de::DeOptions d = o.per_island.empty()
                        ? base
                        : o.per_island[static_cast<std::size_t>(island) % o.per_island.size()];
  d.seed = island_seed(base.seed, island);
  d.population = population_per_island(d, o, n_islands, dim);
  return d;
}

class Runner {
 public:
  Runner(const IslandLayout& L, std::size_t dim, const de::DeOptions& base, const IslandOptions& o,
         const de::BatchObjective& f, const RunHooks& h)
      : L_(L),
        dim_(dim),
        o_(o),
        h_(h),
        opt_(dim, options_for(base, o, L.island, L.n_islands, dim), f),
        seed_(base.seed),
        stride_(1 + dim) {}

  IslandSummary run();

 private:
  de::StopReason island_status();
  void evolve_epoch();
  Step sync_epoch(IslandSummary& S, const Vote& mine, std::size_t epoch, double te, double tm);
  Step async_epoch(IslandSummary& S, const Vote& mine, std::size_t epoch, double te, double tm);
  void report_epoch(std::size_t epoch, double best, double spread, double te, double tm,
                    double t_end);
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
  std::size_t epoch_end_ = 0;     // generation the current epoch runs to
  double t0_ = 0.0;               // the job's start on this rank's clock (earlier on a resume)
  std::size_t every_epochs_ = 0;  // sync checkpoints: every this many epochs (0: never)
  std::size_t last_evals_ = 0;    // evaluations and time at the last epoch report
  double last_t_ = 0.0;
  de::StopReason status_ = de::StopReason::none;
  double migration_s_ = 0.0, vote_s_ = 0.0;  // this rank's time in the two collective phases
  std::size_t sent_ = 0, received_ = 0;
  // async bookkeeping (leaders): the one vote in flight, and the spread of the last one seen
  Vote::Wire vote_in_{}, vote_out_{};
  MPI_Request vote_ = MPI_REQUEST_NULL;
  double vote_spread_ = 0.0;
  std::size_t evals_posted_ = 0;  // evaluations when migrants were last sent
  std::vector<std::vector<double>> send_buffers_;
  std::vector<MPI_Request> send_requests_;
  std::vector<long long> sent_to_, received_from_;
};

}  // namespace perfit::island::detail
