#include "perfit/job/fit_progress.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "perfit/mpi/communicator.hpp"

namespace perfit::job {

double peak_rss_mib(MPI_Comm comm) {
  // Read again after 10 ms only: a selection ends a fit every ~0.1 ms, and getrusage was 1.7%
  // of one over 10^4 sets on this machine. The peak only grows; a value 10 ms old is its
  // lower bound by what 10 ms of small fits allocate.
  using Clock = std::chrono::steady_clock;
  thread_local Clock::time_point read_at;
  thread_local double mine = 0.0;
  if (const Clock::time_point now = Clock::now();
      mine == 0.0 || now - read_at > std::chrono::milliseconds(10)) {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    mine = static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is KiB
    read_at = now;
  }
  double most = mine;
  if (comm != MPI_COMM_NULL) {
    mpi::check(MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, comm),
               "MPI_Reduce (peak memory)");
  }
  return most;
}

void add_progress(island::RunHooks& hooks, const island::IslandLayout& layout, double rows) {
  if (layout.world_size > 1) {
    hooks.on_epoch = [](const island::EpochReport& r) {
      spdlog::info(
          "epoch={} best_cost={:.6g} island_spread={:.3g} evals/s={:.4g} migration={:.1f}%",
          r.epoch, r.best_cost, r.spread, r.evals_per_second, 100.0 * r.migration_fraction);
    };
  } else {
    hooks.on_generation = [rows](const de::DeState& st, double sec) {
      spdlog::info("gen={} evals={} best_cost={:.6g} evals/s={:.4g} row-evals/s={:.3g}",
                   st.generation, st.evaluations, st.history.back(),
                   st.evaluations / std::max(sec, 1e-9),
                   rows * st.evaluations / std::max(sec, 1e-9));
    };
  }
}

}  // namespace perfit::job
