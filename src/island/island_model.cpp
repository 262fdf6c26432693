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
    throw ConfigError("the job has " + std::to_string(L.world_size) +
                      " ranks, which do not split "
                      "into islands of ranks_per_island=" +
                      std::to_string(ranks_per_island));
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
    if (h_.on_generation && L_.world_rank == 0 && h_.progress_every > 0 &&
        g % h_.progress_every == 0) {
      h_.on_generation(opt_.state(), opt_.elapsed());
    }
  }
  island_status();
}

IslandSummary Runner::run() {
  IslandSummary S;
  std::size_t epoch = 0;
  sent_to_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  received_from_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  start(S, epoch, t0_);
  every_epochs_ =
      h_.checkpoint_every == 0 ? 0 : (h_.checkpoint_every + o_.interval - 1) / o_.interval;
  last_evals_ = opt_.state().evaluations;
  last_t_ = now_s();
  Step step = Step::go_on;
  while (step == Step::go_on) {
    const double te = now_s();
    const std::size_t evals = opt_.state().evaluations;
    evolve_epoch();
    if (opt_.state().evaluations != evals || o_.mode == MigrationMode::sync) {
      ++epoch;
    } else {
      std::this_thread::yield();  // async, stopped: only waiting for the vote
    }
    const Vote mine = Vote::of(status_, opt_.state().cost.minCoeff());
    const double tm = now_s();
    step = o_.mode == MigrationMode::sync ? sync_epoch(S, mine, epoch, te, tm)
                                          : async_epoch(S, mine, epoch, te, tm);
  }
  if (o_.mode == MigrationMode::async) drain_async();
  S.epochs = epoch;
  S.seconds = now_s() - t0_;
  finish(S);
  // The agreed reason, not this island's vote: in async mode an island may have seen the vote
  // that stopped the job before another island's interrupt reached it.
  if (S.reason == de::StopReason::interrupted && h_.checkpoint_on_interrupt) {
    // sync: the interrupted epoch is not done (a resumed run finishes it); async: every
    // island's own epochs are.
    const bool unfinished = step == Step::interrupted && o_.mode == MigrationMode::sync;
    checkpoint(S, unfinished ? epoch - 1 : epoch, t0_);
    S.checkpointed = true;
  }
  return S;
}

// sync: every island ends the epoch together; the leaders vote, then all migrate at once.
Step Runner::sync_epoch(IslandSummary& S, const Vote& mine, std::size_t epoch, double te,
                        double tm) {
  Vote::Wire w = mine.wire();  // non-leaders get their leader's copy of the answer
  if (L_.leader() && L_.n_islands > 1) {
    check(MPI_Allreduce(MPI_IN_PLACE, w.data(), 5, MPI_DOUBLE, MPI_MAX, L_.leaders_comm.get()),
          "MPI_Allreduce (epoch vote)");
  }
  if (L_.island_size > 1)
    check(MPI_Bcast(w.data(), 5, MPI_DOUBLE, 0, L_.island_comm.get()), "MPI_Bcast (vote)");
  const Vote job = Vote::from_wire(w);
  const double tv = now_s();
  vote_s_ += tv - tm;
  if (job.interrupted)
    return Step::interrupted;  // the epoch is not done: a resumed run finishes it
  if (!job.stop()) {
    migrate_sync(epoch);
    epoch_end_ = opt_.state().generation + o_.interval;
  }
  S.history.push_back(job.best);
  const double t_end = now_s();
  migration_s_ += t_end - tv;
  report_epoch(epoch, job.best, job.worst - job.best, te, tm, t_end);
  if (job.stop()) return Step::stop;
  if (every_epochs_ > 0 && epoch % every_epochs_ == 0) checkpoint(S, epoch, t0_);
  return Step::go_on;
}

// async: arrivals whenever present; one vote among the leaders in flight at a time, whose
// answer the leaders act on at the epoch it completes.
Step Runner::async_epoch(IslandSummary& S, const Vote& mine, std::size_t epoch, double te,
                         double tm) {
  int step = static_cast<int>(Step::go_on);
  std::vector<double> arrivals;
  if (L_.leader()) {
    // An island that has stopped evolving sends nothing new: its epochs only wait for the
    // vote, and migrants sent in that loop would flood a slow neighbour whose progress engine
    // must get through them before the vote's messages (measured: the stop took 10 of the
    // slow island's epochs instead of 1-2).
    if (opt_.state().evaluations != evals_posted_) {
      post_async(epoch);
      evals_posted_ = opt_.state().evaluations;
    }
    arrivals = poll_async();
  }
  const double tv = now_s();
  if (L_.leader() && L_.n_islands > 1) {
    int done = 0;
    if (vote_ != MPI_REQUEST_NULL) {
      check(MPI_Test(&vote_, &done, MPI_STATUS_IGNORE), "MPI_Test (vote)");
      if (done) {
        const Vote job = Vote::from_wire(vote_out_);
        step = static_cast<int>(job.interrupted ? Step::interrupted
                                : job.stop()    ? Step::stop
                                                : Step::go_on);
        vote_spread_ = job.worst - job.best;
        S.history.push_back(job.best);
      }
    }
    if (vote_ == MPI_REQUEST_NULL && step == static_cast<int>(Step::go_on)) {
      vote_in_ = mine.wire();
      check(MPI_Iallreduce(vote_in_.data(), vote_out_.data(), 5, MPI_DOUBLE, MPI_MAX,
                           L_.leaders_comm.get(), &vote_),
            "MPI_Iallreduce (vote)");
    }
  } else if (L_.leader()) {
    step = static_cast<int>(mine.interrupted ? Step::interrupted
                            : mine.stop()    ? Step::stop
                                             : Step::go_on);
    S.history.push_back(mine.best);
  }
  if (L_.island_size > 1)
    check(MPI_Bcast(&step, 1, MPI_INT, 0, L_.island_comm.get()), "MPI_Bcast (decision)");
  vote_s_ += now_s() - tv;
  apply(arrivals, epoch);
  if (step == static_cast<int>(Step::go_on)) epoch_end_ = opt_.state().generation + o_.interval;
  const double t_end = now_s();
  migration_s_ += t_end - tm;  // the vote's share is taken out in finish()
  // An island that has stopped only polls until the vote ends: no line for those epochs
  // (they would read evals/s=0, migration=99%).
  if (opt_.state().evaluations > last_evals_) {
    report_epoch(epoch, S.history.empty() ? mine.best : S.history.back(), vote_spread_, te, tm,
                 t_end);
  }
  return static_cast<Step>(step);
}

// World rank 0's progress line of an epoch: throughput since the last one, migration share.
void Runner::report_epoch(std::size_t epoch, double best, double spread, double te, double tm,
                          double t_end) {
  if (!h_.on_epoch || L_.world_rank != 0) return;
  const std::size_t ev = opt_.state().evaluations;
  h_.on_epoch(
      {epoch, best, spread,
       static_cast<double>(ev - last_evals_) * L_.n_islands / std::max(t_end - last_t_, 1e-9),
       (t_end - tm) / std::max(t_end - te, 1e-9)});
  last_evals_ = ev;
  last_t_ = t_end;
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
    check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, L_.world),
          "MPI_Allreduce (best)");
    check(MPI_Bcast(S.best.data(), static_cast<int>(dim_), MPI_DOUBLE, out.rank, L_.world),
          "MPI_Bcast (best)");
    check(MPI_Allreduce(&ev, &total, 1, MPI_LONG_LONG, MPI_SUM, L_.world),
          "MPI_Allreduce (evaluations)");
    // The most significant reason over all islands (a target met on island 3 is the job's).
    check(MPI_Allreduce(&mine_p, &job_p, 1, MPI_INT, MPI_MAX, L_.world), "MPI_Allreduce (reason)");
    double b = in.cost;
    check(MPI_Allgather(&b, 1, MPI_DOUBLE, per_rank.data(), 1, MPI_DOUBLE, L_.world),
          "MPI_Allgather (bests)");
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
