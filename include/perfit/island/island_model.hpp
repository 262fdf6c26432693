// The MPI island model: each island (one rank, or ranks_per_island ranks that split the rows
// and allreduce the costs of one population) evolves its own DE population; every `interval`
// generations islands exchange migrants along a topology.
//   sync:  an epoch barrier and neighbour collectives on an MPI distributed-graph
//          communicator; same seed + same rank count -> bit-identical result.
//   async: non-blocking sends, arrivals taken whenever present; an island never waits for a
//          slow neighbour. Termination is agreed by one outstanding non-blocking allreduce at
//          a time, then every island drains what was sent to it: nothing is left pending.
// Termination is global: target reached, or a budget spent, on any island stops all of them
// at the end of the epoch (a converged island idles until all have converged).
#pragma once

#include <mpi.h>

#include <functional>
#include <utility>

#include "perfit/de/optimizer.hpp"
#include "perfit/island/island_options.hpp"
#include "perfit/island/island_snapshot.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::island {

struct IslandLayout {
  int world_rank = 0, world_size = 1;
  int island = 0, n_islands = 1;
  int island_rank = 0, island_size = 1;
  mpi::Communicator island_comm;   // the ranks of this island
  mpi::Communicator leaders_comm;  // island_rank 0 of every island; null elsewhere
  MPI_Comm world = MPI_COMM_WORLD;
  bool leader() const { return island_rank == 0; }
  // Rows [first, second) of an n-row set that this rank evaluates.
  std::pair<std::size_t, std::size_t> row_slice(std::size_t n) const;
};

// Collective over world. Throws: ConfigError if world does not split; MpiError.
IslandLayout make_layout(MPI_Comm world, int ranks_per_island);
// One island of one rank without MPI: the serial fit (no MPI call is made).
IslandLayout serial_layout();

// The DE seed of an island: the base seed for island 0 (one island = the serial fit).
std::uint64_t island_seed(std::uint64_t seed, int island);

struct EpochReport {
  std::size_t epoch = 0;
  double best_cost = 0.0;           // global
  double spread = 0.0;              // max - min of the island bests
  double evals_per_second = 0.0;    // all islands
  double migration_fraction = 0.0;  // of this epoch's wall time (rank 0's view)
};

struct IslandSummary {
  de::StopReason reason = de::StopReason::none;
  std::string message;
  Eigen::VectorXd best;  // unit cube, the global best
  double best_cost = 0.0;
  int best_island = 0;
  std::size_t epochs = 0;
  std::size_t generations = 0;  // of island 0
  std::size_t evaluations = 0;  // all islands
  double seconds = 0.0;
  double migration_seconds = 0.0;  // this rank: sending and applying migrants
  double vote_seconds = 0.0;       // this rank: the stop vote (allreduce over island leaders)
  std::size_t migrants_sent = 0, migrants_received = 0;  // this island
  bool checkpointed = false;           // a checkpoint was written when the run was interrupted
  std::vector<double> history;         // global best after each epoch
  std::vector<double> island_history;  // this island's best after each generation
  std::vector<double> island_best;     // final best cost of each island
};

// What the run reports and where it checkpoints. Every field but the callbacks and the
// resume data must be the same on all ranks (they decide collective steps).
struct RunHooks {
  std::function<void(const EpochReport&)> on_epoch;  // world rank 0, after each epoch's vote
  // World rank 0, every progress_every generations of island 0: (state, seconds).
  std::function<void(const de::DeState&, double)> on_generation;
  std::size_t progress_every = 0;
  // Checkpoint every this many generations, rounded up to whole epochs (sync mode; async
  // checkpoints only when interrupted, since its islands never meet at an epoch); 0: never.
  std::size_t checkpoint_every = 0;
  bool checkpoint_on_interrupt = false;
  // World rank 0: every island's state (index = island) and the job's.
  std::function<void(const std::vector<std::vector<std::uint64_t>>&, const JobSnapshot&)>
      checkpoint;
  bool resume = false;  // continue from the states below (given on world rank 0 only)
  std::vector<std::vector<std::uint64_t>> resume_islands;
  JobSnapshot resume_job;
  std::function<bool()> interrupted;  // polled every generation on every rank; empty: never
};

// Runs the islands; collective over layout.world. `objective` is this rank's part of its
// island's evaluation (it must reduce over layout.island_comm itself). Stop decisions are
// taken by each island's leader and agreed within the island every generation, then by the
// islands at each epoch's vote: ranks of one island never disagree on whether to step.
IslandSummary run_islands(const IslandLayout& layout, std::size_t dim, const de::DeOptions& base,
                          const IslandOptions& options, const de::BatchObjective& objective,
                          const RunHooks& hooks = {});

}  // namespace perfit::island
