#include "perfit/island/island_model.hpp"

#include "island_runner.hpp"

namespace perfit::island {

using mpi::check;


std::uint64_t island_seed(std::uint64_t seed, int island) {
  return island == 0 ? seed : Rng::derive(seed, static_cast<std::uint64_t>(island)).next();
}

std::pair<std::size_t, std::size_t> IslandLayout::row_slice(std::size_t n) const {
  const auto k = static_cast<std::size_t>(island_size), r = static_cast<std::size_t>(island_rank);
  return {n * r / k, n * (r + 1) / k};
}

IslandLayout make_layout(MPI_Comm world, int ranks_per_island) {
  IslandLayout L;
  L.world = world;
  check(MPI_Comm_rank(world, &L.world_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(world, &L.world_size), "MPI_Comm_size");
  if (ranks_per_island < 1 || L.world_size % ranks_per_island != 0) {
    throw ConfigError("the job has " + std::to_string(L.world_size) + " ranks, which do not split "
                      "into islands of ranks_per_island=" + std::to_string(ranks_per_island));
  }
  L.island = L.world_rank / ranks_per_island;
  L.n_islands = L.world_size / ranks_per_island;
  MPI_Comm ic = MPI_COMM_NULL, lc = MPI_COMM_NULL;
  check(MPI_Comm_split(world, L.island, L.world_rank, &ic), "MPI_Comm_split (islands)");
  L.island_comm = mpi::Communicator(ic);
  L.island_rank = L.island_comm.rank();
  L.island_size = L.island_comm.size();
  check(MPI_Comm_split(world, L.island_rank == 0 ? 0 : MPI_UNDEFINED, L.world_rank, &lc),
        "MPI_Comm_split (leaders)");
  L.leaders_comm = mpi::Communicator(lc);
  return L;
}

IslandLayout serial_layout() {
  IslandLayout L;
  L.world = MPI_COMM_NULL;
  return L;
}


namespace detail {

// The leader's decision (its clock, its state), with any rank's interrupt, for the whole
// island: a time limit read on two clocks can never split an island.
de::StopReason Runner::island_status() {
  int v[2] = {L_.leader() ? de::significance(opt_.should_stop()) : 0,
              h_.interrupted && h_.interrupted() ? 1 : 0};
  if (L_.island_size > 1) {
    check(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, L_.island_comm.get()),
          "MPI_Allreduce (island stop)");
  }
  status_ = v[1] ? de::StopReason::interrupted : static_cast<de::StopReason>(v[0]);
  return status_;
}

void Runner::evolve_epoch() {
  while (opt_.state().generation < epoch_end_ && island_status() == de::StopReason::none) {
    if (L_.island == o_.slow_island && o_.slow_ms > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o_.slow_ms));
    }
    opt_.step();
    const std::size_t g = opt_.state().generation;
    if (h_.on_generation && L_.world_rank == 0 && h_.progress_every > 0 && g % h_.progress_every == 0) {
      h_.on_generation(opt_.state(), opt_.elapsed());
    }
  }
  island_status();
}

IslandSummary Runner::run() {
  IslandSummary S;
  std::size_t epoch = 0;
  double t0 = 0;
  sent_to_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  received_from_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  start(S, epoch, t0);
  const std::size_t every_epochs =
      h_.checkpoint_every == 0 ? 0 : (h_.checkpoint_every + o_.interval - 1) / o_.interval;
  // State of the vote: [any hard stop, all converged, -min best, max best, any interrupt].
  double vote_in[5], vote_out[5];
  MPI_Request vote = MPI_REQUEST_NULL;
  bool vote_seen = false, stop = false, job_interrupted = false;
  std::size_t last_evals = opt_.state().evaluations;
  double last_t = now_s();
  while (!stop) {
    const double te = now_s();
    evolve_epoch();
    ++epoch;
    const de::StopReason st = status_;
    const double mine = opt_.state().cost.minCoeff();
    const double tm = now_s();
    const double report[5] = {hard_stop(st) ? 1.0 : 0.0, st == de::StopReason::converged ? 1.0 : 0.0,
                              -mine, mine, st == de::StopReason::interrupted ? 1.0 : 0.0};
    if (o_.mode == MigrationMode::sync) {
      // Leaders vote (others carry copies of their island's numbers; the vote is over leaders).
      double global[5] = {report[0], report[1], report[2], report[3], report[4]};
      if (L_.leader() && L_.n_islands > 1) {
        double mx[5] = {report[0], -report[1], report[2], report[3], report[4]};
        check(MPI_Allreduce(mx, global, 5, MPI_DOUBLE, MPI_MAX, L_.leaders_comm.get()),
              "MPI_Allreduce (epoch vote)");
        global[1] = -global[1];  // all converged = min over islands
      }
      if (L_.island_size > 1) {
        check(MPI_Bcast(global, 5, MPI_DOUBLE, 0, L_.island_comm.get()), "MPI_Bcast (vote)");
      }
      stop = global[0] > 0 || global[1] > 0;
      job_interrupted = global[4] > 0;
      const double tv = now_s();
      vote_s_ += tv - tm;
      if (job_interrupted) break;  // the epoch is not done: a resumed run finishes it
      if (!stop) {
        migrate_sync(epoch);
        epoch_end_ = opt_.state().generation + o_.interval;
      }
      S.history.push_back(-global[2]);
      const double t_end = now_s();
      migration_s_ += t_end - tv;
      if (h_.on_epoch && L_.world_rank == 0) {
        const long long ev = static_cast<long long>(opt_.state().evaluations);
        EpochReport r{epoch, -global[2], global[3] - (-global[2]),
                      static_cast<double>((ev - static_cast<long long>(last_evals)) * L_.n_islands) /
                          std::max(t_end - last_t, 1e-9),
                      (t_end - tm) / std::max(t_end - te, 1e-9)};
        h_.on_epoch(r);
        last_evals = static_cast<std::size_t>(ev);
        last_t = t_end;
      }
      if (!stop && every_epochs > 0 && epoch % every_epochs == 0) checkpoint(S, epoch, t0);
    } else {
      // async: arrivals whenever present; one outstanding vote among leaders at a time.
      int decision = 0;  // 0 continue, 1 stop, 2 stop: interrupted
      if (L_.leader()) {
        post_async(epoch);
        const std::vector<double> arrivals = poll_async();
        const double tv = now_s();
        if (L_.n_islands > 1) {
          int done = 0;
          if (vote != MPI_REQUEST_NULL) {
            check(MPI_Test(&vote, &done, MPI_STATUS_IGNORE), "MPI_Test (vote)");
            if (done) {
              vote_seen = true;
              decision = vote_out[4] > 0 ? 2 : (vote_out[0] > 0 || -vote_out[1] > 0) ? 1 : 0;
              S.history.push_back(-vote_out[2]);
            }
          }
          if (vote == MPI_REQUEST_NULL && decision == 0) {
            vote_in[0] = report[0];
            vote_in[1] = -report[1];
            vote_in[2] = report[2];
            vote_in[3] = report[3];
            vote_in[4] = report[4];
            check(MPI_Iallreduce(vote_in, vote_out, 5, MPI_DOUBLE, MPI_MAX, L_.leaders_comm.get(), &vote),
                  "MPI_Iallreduce (vote)");
          }
        } else {
          decision = report[4] > 0 ? 2 : (report[0] > 0 || report[1] > 0) ? 1 : 0;
          S.history.push_back(mine);
        }
        if (L_.island_size > 1) {
          check(MPI_Bcast(&decision, 1, MPI_INT, 0, L_.island_comm.get()), "MPI_Bcast (decision)");
        }
        vote_s_ += now_s() - tv;
        apply(arrivals, epoch);
      } else {
        const double tv = now_s();
        check(MPI_Bcast(&decision, 1, MPI_INT, 0, L_.island_comm.get()), "MPI_Bcast (decision)");
        vote_s_ += now_s() - tv;
        apply({}, epoch);
      }
      stop = decision != 0;
      job_interrupted = decision == 2;
      if (!stop) epoch_end_ = opt_.state().generation + o_.interval;
      const double t_end = now_s();
      migration_s_ += t_end - tm;  // the vote's share is taken out below
      // An island that has stopped only polls until the vote ends: no line for those epochs
      // (they would read evals/s=0, migration=99%).
      const auto ev = opt_.state().evaluations;
      if (h_.on_epoch && L_.world_rank == 0 && ev > last_evals) {
        // The spread is the last completed vote's (max - min of the island bests).
        const double spread = vote_seen ? vote_out[3] - (-vote_out[2]) : 0.0;
        h_.on_epoch({epoch, S.history.empty() ? mine : S.history.back(), spread,
                     static_cast<double>(ev - last_evals) * L_.n_islands / std::max(t_end - last_t, 1e-9),
                     (t_end - tm) / std::max(t_end - te, 1e-9)});
        last_evals = ev;
        last_t = t_end;
      }
    }
  }
  if (o_.mode == MigrationMode::async) drain_async();
  S.epochs = epoch;
  S.seconds = now_s() - t0;
  finish(S);
  // The agreed reason, not this island's vote: in async mode an island may have seen the vote
  // that stopped the job before another island's interrupt reached it.
  if (S.reason == de::StopReason::interrupted && h_.checkpoint_on_interrupt) {
    // sync: the interrupted epoch is not done (a resumed run finishes it); async: every
    // island's own epochs are.
    checkpoint(S, job_interrupted && o_.mode == MigrationMode::sync ? epoch - 1 : epoch, t0);
    S.checkpointed = true;
  }
  return S;
}

// The global best, the job's stop reason and the totals, agreed over the world.
void Runner::finish(IslandSummary& S) {
  struct {
    double cost;
    int rank;
  } in{opt_.state().cost.minCoeff(), L_.world_rank}, out{in};
  S.best = opt_.state().pop.col(static_cast<Eigen::Index>(opt_.best_index()));
  long long ev = L_.leader() ? static_cast<long long>(opt_.state().evaluations) : 0, total = ev;
  int mine_p = de::significance(status_), job_p = mine_p;
  std::vector<double> per_rank(static_cast<std::size_t>(L_.world_size), in.cost);
  if (L_.world_size > 1) {
    check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, L_.world), "MPI_Allreduce (best)");
    check(MPI_Bcast(S.best.data(), static_cast<int>(dim_), MPI_DOUBLE, out.rank, L_.world), "MPI_Bcast (best)");
    check(MPI_Allreduce(&ev, &total, 1, MPI_LONG_LONG, MPI_SUM, L_.world), "MPI_Allreduce (evaluations)");
    // The most significant reason over all islands (a target met on island 3 is the job's).
    check(MPI_Allreduce(&mine_p, &job_p, 1, MPI_INT, MPI_MAX, L_.world), "MPI_Allreduce (reason)");
    double b = in.cost;
    check(MPI_Allgather(&b, 1, MPI_DOUBLE, per_rank.data(), 1, MPI_DOUBLE, L_.world), "MPI_Allgather (bests)");
  }
  S.best_cost = out.cost;
  S.best_island = out.rank / std::max(1, L_.island_size);
  S.reason = static_cast<de::StopReason>(job_p);
  S.message = S.reason == de::StopReason::none ? "stopped with the other islands"
                                               : opt_.summary(S.reason).message;
  for (int i = 0; i < L_.n_islands; ++i) {
    S.island_best.push_back(per_rank[static_cast<std::size_t>(i * L_.island_size)]);
  }
  S.generations = opt_.state().generation;
  S.island_history = opt_.state().history;
  S.evaluations = static_cast<std::size_t>(total);
  S.vote_seconds = vote_s_;
  // async: migration_s_ timed the whole exchange, vote included
  S.migration_seconds = o_.mode == MigrationMode::async ? migration_s_ - vote_s_ : migration_s_;
  S.migrants_sent = sent_;
  S.migrants_received = received_;
}

}  // namespace detail

IslandSummary run_islands(const IslandLayout& layout, std::size_t dim, const de::DeOptions& base,
                          const IslandOptions& options, const de::BatchObjective& objective,
                          const RunHooks& hooks) {
  options.validate(layout.world_size);
  detail::Runner r(layout, dim, base, options, objective, hooks);
  return r.run();
}

}  // namespace perfit::island
