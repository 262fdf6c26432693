// Checkpoints and resume of the island runner: every island's state gathered to world rank 0
// as exact words, and scattered back on resume.
#include "island_runner.hpp"

namespace perfit::island::detail {

// A fresh start, or the checkpointed states: rank 0 scatters them to the leaders, leaders to
// their island's ranks; every rank then holds exactly the state it had when interrupted.
void Runner::start(IslandSummary& S, std::size_t& epoch, double& t0) {
  t0 = now_s();
  if (!h_.resume) {
    opt_.initialize();
    epoch_end_ = o_.interval;
    return;
  }
  std::vector<std::uint64_t> mine;
  if (L_.world_size == 1) {
    mine = h_.resume_islands.at(0);
  } else {
    if (L_.leader()) {
      std::vector<int> sizes, displs;
      std::vector<std::uint64_t> all;
      if (L_.world_rank == 0) {
        for (const auto& w : h_.resume_islands) {
          displs.push_back(static_cast<int>(all.size()));
          sizes.push_back(static_cast<int>(w.size()));
          all.insert(all.end(), w.begin(), w.end());
        }
      }
      int n = 0;
      check(MPI_Scatter(sizes.data(), 1, MPI_INT, &n, 1, MPI_INT, 0, L_.leaders_comm.get()),
            "MPI_Scatter (checkpoint sizes)");
      mine.resize(static_cast<std::size_t>(n));
      check(MPI_Scatterv(all.data(), sizes.data(), displs.data(), MPI_UINT64_T, mine.data(), n,
                         MPI_UINT64_T, 0, L_.leaders_comm.get()),
            "MPI_Scatterv (checkpoint)");
    }
    if (L_.island_size > 1) {
      long long n = static_cast<long long>(mine.size());
      check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, L_.island_comm.get()),
            "MPI_Bcast (checkpoint size)");
      mine.resize(static_cast<std::size_t>(n));
      check(MPI_Bcast(mine.data(), static_cast<int>(n), MPI_UINT64_T, 0, L_.island_comm.get()),
            "MPI_Bcast (checkpoint)");
    }
  }
  IslandSnapshot snap = from_words(mine, dim_);
  opt_.set_state(std::move(snap.state));
  opt_.set_elapsed(snap.seconds);
  epoch_end_ = snap.epoch_end_generation;
  JobSnapshot job = h_.resume_job;
  if (L_.world_size > 1) {
    long long n[2] = {static_cast<long long>(job.epochs_done),
                      static_cast<long long>(job.history.size())};
    check(MPI_Bcast(n, 2, MPI_LONG_LONG, 0, L_.world), "MPI_Bcast (job checkpoint)");
    job.epochs_done = static_cast<std::size_t>(n[0]);
    job.history.resize(static_cast<std::size_t>(n[1]));
    check(MPI_Bcast(job.history.data(), static_cast<int>(n[1]), MPI_DOUBLE, 0, L_.world),
          "MPI_Bcast (job history)");
    check(MPI_Bcast(&job.seconds, 1, MPI_DOUBLE, 0, L_.world), "MPI_Bcast (job seconds)");
  }
  epoch = job.epochs_done;
  S.history = job.history;
  t0 -= job.seconds;
}

// Leaders send their island's state to world rank 0, which hands all of them to the hook.
void Runner::checkpoint(const IslandSummary& S, std::size_t epochs_done, double t0) {
  if (!L_.leader()) return;
  const std::vector<std::uint64_t> mine = to_words({opt_.state(), epoch_end_, opt_.elapsed()});
  std::vector<std::vector<std::uint64_t>> islands;
  if (L_.n_islands == 1) {
    islands.push_back(mine);
  } else {
    int n = static_cast<int>(mine.size());
    std::vector<int> sizes(static_cast<std::size_t>(L_.n_islands)), displs(sizes.size());
    check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, L_.leaders_comm.get()),
          "MPI_Gather (checkpoint sizes)");
    int total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      displs[i] = total;
      total += sizes[i];
    }
    std::vector<std::uint64_t> all(L_.world_rank == 0 ? static_cast<std::size_t>(total) : 0);
    check(MPI_Gatherv(mine.data(), n, MPI_UINT64_T, all.data(), sizes.data(), displs.data(),
                      MPI_UINT64_T, 0, L_.leaders_comm.get()),
          "MPI_Gatherv (checkpoint)");
    if (L_.world_rank == 0) {
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        islands.emplace_back(all.begin() + displs[i], all.begin() + displs[i] + sizes[i]);
      }
    }
  }
  if (L_.world_rank == 0 && h_.checkpoint)
    h_.checkpoint(islands, {epochs_done, S.history, now_s() - t0});
}

}  // namespace perfit::island::detail
