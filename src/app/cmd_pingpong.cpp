// `perfit pingpong`: the MPI latency and bandwidth between world ranks 0 and 1, measured with
// the messages perfit sends (scripts/scaling.py projects the island model past this machine
// with them; also a quick check of a cluster's interconnect before a long job).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::app {

namespace {

struct PingArgs {
  int reps = 2000;
  std::size_t big = std::size_t{4} << 20;
  bool json = false;
  mpi::MpiEnvironment* env = nullptr;
};

// Seconds per one-way trip of `bytes` between ranks 0 and 1 (half the round trip, median
// of three blocks of reps). Ranks beyond 1 only wait.
double one_way(std::size_t bytes, int reps, int rank) {
  std::vector<char> buf(std::max<std::size_t>(bytes, 1));
  const int n = static_cast<int>(bytes);
  std::vector<double> blocks;
  for (int block = 0; block < 3; ++block) {
    mpi::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier (pingpong)");
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps && rank < 2; ++i) {
      if (rank == 0) {
        mpi::check(MPI_Send(buf.data(), n, MPI_CHAR, 1, 0, MPI_COMM_WORLD), "MPI_Send (pingpong)");
        mpi::check(MPI_Recv(buf.data(), n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv (pingpong)");
      } else {
        mpi::check(MPI_Recv(buf.data(), n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv (pingpong)");
        mpi::check(MPI_Send(buf.data(), n, MPI_CHAR, 0, 0, MPI_COMM_WORLD), "MPI_Send (pingpong)");
      }
    }
    blocks.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                     (2.0 * reps));
  }
  std::sort(blocks.begin(), blocks.end());
  return blocks[1];
}

int run_pingpong(const PingArgs& a) {
  if (!a.env->initialized() || a.env->size() < 2) {
    throw ConfigError(
        "perfit pingpong needs 2 or more ranks: mpiexec -n 2 perfit pingpong "
        "(srun -n 2 --mpi=pmix perfit pingpong under Slurm)");
  }
  const int rank = a.env->rank();
  one_way(8, a.reps / 10, rank);  // warm-up: connections are set up lazily
  const double latency = one_way(8, a.reps, rank);
  const int big_reps = std::max(4, a.reps / 100);
  const double t_big = one_way(a.big, big_reps, rank);
  const double bandwidth = static_cast<double>(a.big) / std::max(t_big - latency, 1e-12);
  if (rank != 0) return 0;
  if (a.json) {
    std::cout << nlohmann::json{{"ranks", a.env->size()},
                                {"latency_us", latency * 1e6},
                                {"bandwidth_gbs", bandwidth / 1e9},
                                {"bytes", a.big}}
                     .dump(2)
              << "\n";
  } else {
    std::printf(
        "rank 0 <-> rank 1: latency %.2f us (8 B, one way), bandwidth %.2f GB/s (%zu B messages)\n",
        latency * 1e6, bandwidth / 1e9, a.big);
  }
  return 0;
}

const OptionTable<PingArgs>& pingpong_options() {
  using A = PingArgs;
  static const OptionTable<A> t = {
      whole_option<A>("reps", &A::reps, 10, 10000000, "round trips of 8 B per timing block"),
      whole_option<A>("bytes", &A::big, 1024, std::size_t{1} << 30,
                      "message size for the bandwidth"),
      json_option<A>(&A::json, "one JSON object"),
  };
  return t;
}

}  // namespace

void add_pingpong_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<PingArgs>();
  a->env = &env;
  add_command(
      app, action, "pingpong",
      "MPI latency and bandwidth between ranks 0 and 1 (mpiexec -n 2 perfit pingpong): what\n"
      "scripts/scaling.py projects the island model with, and a check of an interconnect.",
      a, pingpong_options(), run_pingpong);
}

}  // namespace perfit::app
