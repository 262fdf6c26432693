#include "perfit/island/island_model.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "perfit/core/error.hpp"

namespace perfit::island {

namespace {

using mpi::check;
constexpr int kMigrantTag = 7101;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool hard_stop(de::StopReason r) {
  return r != de::StopReason::none && r != de::StopReason::converged;
}

// Per-island DE options: heterogeneous list or the base, with the island's own seed.
de::DeOptions options_for(const de::DeOptions& base, const IslandOptions& o, int island) {
  de::DeOptions d = o.per_island.empty() ? base : o.per_island[static_cast<std::size_t>(island) % o.per_island.size()];
  d.seed = island_seed(base.seed, island);
  return d;
}

}  // namespace

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

namespace {

class Runner {
 public:
  Runner(const IslandLayout& L, std::size_t dim, const de::DeOptions& base,
         const IslandOptions& o, const de::BatchObjective& f)
      : L_(L), dim_(dim), o_(o), opt_(dim, options_for(base, o, L.island), f),
        seed_(base.seed), stride_(1 + dim) {}

  IslandSummary run(const std::function<void(const EpochReport&)>& on_epoch);

 private:
  void evolve_epoch();
  de::StopReason local_status() const { return opt_.should_stop(); }
  // Leaders exchange migrants; the island's ranks then all apply the same arrivals.
  void migrate_sync(std::size_t epoch);
  void post_async(std::size_t epoch);
  std::vector<double> poll_async();
  void drain_async();
  void apply(const std::vector<double>& arrivals, std::size_t epoch);

  const IslandLayout& L_;
  std::size_t dim_;
  const IslandOptions& o_;
  de::DeOptimizer opt_;
  std::uint64_t seed_;
  std::size_t stride_;
  double migration_s_ = 0.0;
  std::size_t sent_ = 0, received_ = 0;
  // async bookkeeping (leaders)
  std::vector<std::vector<double>> send_buffers_;
  std::vector<MPI_Request> send_requests_;
  std::vector<long long> sent_to_, received_from_;
};

void Runner::evolve_epoch() {
  for (std::size_t g = 0; g < o_.interval; ++g) {
    if (local_status() != de::StopReason::none) return;
    if (L_.island == o_.slow_island && o_.slow_ms > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o_.slow_ms));
    }
    opt_.step();
  }
}

void Runner::apply(const std::vector<double>& arrivals, std::size_t epoch) {
  std::vector<double> buf = arrivals;
  if (L_.island_size > 1) {  // every rank of the island applies the leader's arrivals
    long long n = static_cast<long long>(buf.size());
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, L_.island_comm.get()), "MPI_Bcast (migrant count)");
    buf.resize(static_cast<std::size_t>(n));
    check(MPI_Bcast(buf.data(), static_cast<int>(n), MPI_DOUBLE, 0, L_.island_comm.get()),
          "MPI_Bcast (migrants)");
  }
  if (buf.empty()) return;
  Rng rng = Rng::derive(seed_, 0x51A7000000ULL + static_cast<std::uint64_t>(L_.island) * 1000003ULL + epoch);
  de::DeState s = opt_.state();
  received_ += accept_immigrants(s, buf, dim_, o_.replace, rng);
  opt_.set_state(std::move(s));
}

void Runner::migrate_sync(std::size_t epoch) {
  std::vector<double> arrivals;
  if (L_.leader() && L_.n_islands > 1) {
    const Topology t = make_topology(o_.topology, L_.n_islands, seed_, epoch);
    const auto& in = t.in[static_cast<std::size_t>(L_.island)];
    const auto& out = t.out[static_cast<std::size_t>(L_.island)];
    MPI_Comm graph = MPI_COMM_NULL;
    check(MPI_Dist_graph_create_adjacent(L_.leaders_comm.get(), static_cast<int>(in.size()), in.data(),
                                         MPI_UNWEIGHTED, static_cast<int>(out.size()), out.data(),
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph),
          "MPI_Dist_graph_create_adjacent");
    mpi::Communicator g(graph);
    Rng rng = Rng::derive(seed_, 0xE1000000ULL + static_cast<std::uint64_t>(L_.island) * 1000003ULL + epoch);
    const std::vector<double> mine = select_emigrants(opt_.state(), o_.migrants, o_.emigrants, rng);
    // Every island sends the same number of migrants (population >= migrants is validated).
    arrivals.resize(in.size() * mine.size());
    check(MPI_Neighbor_allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                                 arrivals.data(), static_cast<int>(mine.size()), MPI_DOUBLE, g.get()),
          "MPI_Neighbor_allgather (migrants)");
    sent_ += out.empty() ? 0 : mine.size() / stride_;
  }
  apply(arrivals, epoch);
}

void Runner::post_async(std::size_t epoch) {
  if (!L_.leader() || L_.n_islands < 2) return;
  const Topology t = make_topology(o_.topology, L_.n_islands, seed_, epoch);
  Rng rng = Rng::derive(seed_, 0xE1000000ULL + static_cast<std::uint64_t>(L_.island) * 1000003ULL + epoch);
  const std::vector<double> mine = select_emigrants(opt_.state(), o_.migrants, o_.emigrants, rng);
  for (const int dst : t.out[static_cast<std::size_t>(L_.island)]) {
    send_buffers_.push_back(mine);
    send_requests_.emplace_back();
    check(MPI_Isend(send_buffers_.back().data(), static_cast<int>(mine.size()), MPI_DOUBLE, dst,
                    kMigrantTag, L_.leaders_comm.get(), &send_requests_.back()),
          "MPI_Isend (migrants)");
    ++sent_to_[static_cast<std::size_t>(dst)];
    sent_ += mine.size() / stride_;
  }
  // Release the buffers of completed sends (keep the vector's order stable).
  int flag = 0;
  for (std::size_t i = 0; i < send_requests_.size();) {
    check(MPI_Test(&send_requests_[i], &flag, MPI_STATUS_IGNORE), "MPI_Test (send)");
    if (flag) {
      send_requests_.erase(send_requests_.begin() + static_cast<std::ptrdiff_t>(i));
      send_buffers_.erase(send_buffers_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

std::vector<double> Runner::poll_async() {
  std::vector<double> all;
  if (!L_.leader() || L_.n_islands < 2) return all;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kMigrantTag, L_.leaders_comm.get(), &flag, &st), "MPI_Iprobe");
    if (!flag) break;
    int count = 0;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    std::vector<double> buf(static_cast<std::size_t>(count));
    check(MPI_Recv(buf.data(), count, MPI_DOUBLE, st.MPI_SOURCE, kMigrantTag, L_.leaders_comm.get(),
                   MPI_STATUS_IGNORE),
          "MPI_Recv (migrants)");
    ++received_from_[static_cast<std::size_t>(st.MPI_SOURCE)];
    all.insert(all.end(), buf.begin(), buf.end());
  }
  return all;
}

// After the stop is agreed: learn how many messages each island sent here, receive the rest,
// complete every send. Nothing stays pending when MPI_Finalize comes.
void Runner::drain_async() {
  if (!L_.leader() || L_.n_islands < 2) return;
  std::vector<long long> incoming(static_cast<std::size_t>(L_.n_islands));
  check(MPI_Alltoall(sent_to_.data(), 1, MPI_LONG_LONG, incoming.data(), 1, MPI_LONG_LONG,
                     L_.leaders_comm.get()),
        "MPI_Alltoall (message counts)");
  for (int src = 0; src < L_.n_islands; ++src) {
    while (received_from_[static_cast<std::size_t>(src)] < incoming[static_cast<std::size_t>(src)]) {
      MPI_Status st;
      check(MPI_Probe(src, kMigrantTag, L_.leaders_comm.get(), &st), "MPI_Probe (drain)");
      int count = 0;
      MPI_Get_count(&st, MPI_DOUBLE, &count);
      std::vector<double> buf(static_cast<std::size_t>(count));
      check(MPI_Recv(buf.data(), count, MPI_DOUBLE, src, kMigrantTag, L_.leaders_comm.get(),
                     MPI_STATUS_IGNORE),
            "MPI_Recv (drain)");
      ++received_from_[static_cast<std::size_t>(src)];
    }
  }
  check(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall (sends)");
  send_requests_.clear();
  send_buffers_.clear();
}

IslandSummary Runner::run(const std::function<void(const EpochReport&)>& on_epoch) {
  const double t0 = now_s();
  sent_to_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  received_from_.assign(static_cast<std::size_t>(L_.n_islands), 0);
  opt_.initialize();
  IslandSummary S;
  // State of the async termination vote: [any hard stop, all converged, -min best, max best].
  double vote_in[4], vote_out[4];
  MPI_Request vote = MPI_REQUEST_NULL;
  bool vote_seen = false;
  bool stop = false;
  std::size_t epoch = 0;
  std::size_t last_evals = 0;
  double last_t = t0;
  while (!stop) {
    const double te = now_s();
    evolve_epoch();
    ++epoch;
    const de::StopReason st = local_status();
    const double mine = opt_.state().cost.minCoeff();
    const double tm = now_s();
    double report[4] = {hard_stop(st) ? 1.0 : 0.0, st == de::StopReason::converged ? 1.0 : 0.0, -mine, mine};
    if (o_.mode == MigrationMode::sync) {
      // Leaders vote (others carry copies of their island's numbers; the vote is over leaders).
      double global[4] = {report[0], report[1], report[2], report[3]};
      if (L_.leader()) {
        double mx[4] = {report[0], -report[1], report[2], report[3]};
        check(MPI_Allreduce(mx, global, 4, MPI_DOUBLE, MPI_MAX, L_.leaders_comm.get()),
              "MPI_Allreduce (epoch vote)");
        global[1] = -global[1];  // all converged = min over islands
      }
      if (L_.island_size > 1) {
        check(MPI_Bcast(global, 4, MPI_DOUBLE, 0, L_.island_comm.get()), "MPI_Bcast (vote)");
      }
      stop = global[0] > 0 || global[1] > 0;
      if (!stop) migrate_sync(epoch);
      S.history.push_back(-global[2]);
      const double t_end = now_s();
      migration_s_ += t_end - tm;
      if (on_epoch && L_.world_rank == 0) {
        long long ev = static_cast<long long>(opt_.state().evaluations), total = 0;
        total = ev * L_.n_islands;  // islands evaluate the same number per epoch (estimate)
        EpochReport r{epoch, -global[2], global[3] - (-global[2]),
                      static_cast<double>(total - static_cast<long long>(last_evals) * L_.n_islands) /
                          std::max(t_end - last_t, 1e-9),
                      (t_end - tm) / std::max(t_end - te, 1e-9)};
        on_epoch(r);
        last_evals = static_cast<std::size_t>(ev);
        last_t = t_end;
      }
    } else {
      // async: arrivals whenever present; one outstanding vote among leaders at a time.
      int decision = 0;  // 0 continue, 1 stop
      if (L_.leader()) {
        post_async(epoch);
        const std::vector<double> arrivals = poll_async();
        if (L_.n_islands > 1) {
          int done = 0;
          if (vote != MPI_REQUEST_NULL) {
            check(MPI_Test(&vote, &done, MPI_STATUS_IGNORE), "MPI_Test (vote)");
            if (done) {
              vote_seen = true;
              decision = (vote_out[0] > 0 || -vote_out[1] > 0) ? 1 : 0;
              S.history.push_back(-vote_out[2]);
            }
          }
          if (vote == MPI_REQUEST_NULL && decision == 0) {
            vote_in[0] = report[0];
            vote_in[1] = -report[1];
            vote_in[2] = report[2];
            vote_in[3] = report[3];
            check(MPI_Iallreduce(vote_in, vote_out, 4, MPI_DOUBLE, MPI_MAX, L_.leaders_comm.get(), &vote),
                  "MPI_Iallreduce (vote)");
          }
        } else {
          decision = (report[0] > 0 || report[1] > 0) ? 1 : 0;
          S.history.push_back(mine);
        }
        if (L_.island_size > 1) {
          check(MPI_Bcast(&decision, 1, MPI_INT, 0, L_.island_comm.get()), "MPI_Bcast (decision)");
        }
        apply(arrivals, epoch);
      } else {
        check(MPI_Bcast(&decision, 1, MPI_INT, 0, L_.island_comm.get()), "MPI_Bcast (decision)");
        apply({}, epoch);
      }
      stop = decision == 1;
      const double t_end = now_s();
      migration_s_ += t_end - tm;
      // An island that has stopped only polls until the vote ends: no line for those epochs
      // (they would read evals/s=0, migration=99%).
      const auto ev = opt_.state().evaluations;
      if (on_epoch && L_.world_rank == 0 && ev > last_evals) {
        // The spread is the last completed vote's (max - min of the island bests).
        const double spread = vote_seen ? vote_out[3] - (-vote_out[2]) : 0.0;
        on_epoch({epoch, S.history.empty() ? mine : S.history.back(), spread,
                  static_cast<double>(ev - last_evals) * L_.n_islands / std::max(t_end - last_t, 1e-9),
                  (t_end - tm) / std::max(t_end - te, 1e-9)});
        last_evals = ev;
        last_t = t_end;
      }
    }
  }
  if (o_.mode == MigrationMode::async) drain_async();

  // The global best: which island, then its vector to everyone.
  struct {
    double cost;
    int rank;
  } in{opt_.state().cost.minCoeff(), L_.world_rank}, out{};
  check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, L_.world), "MPI_Allreduce (best)");
  S.best = opt_.state().pop.col(static_cast<Eigen::Index>(opt_.best_index()));
  check(MPI_Bcast(S.best.data(), static_cast<int>(dim_), MPI_DOUBLE, out.rank, L_.world), "MPI_Bcast (best)");
  S.best_cost = out.cost;
  S.best_island = out.rank / std::max(1, L_.island_size);
  long long ev = L_.leader() ? static_cast<long long>(opt_.state().evaluations) : 0, total = 0;
  check(MPI_Allreduce(&ev, &total, 1, MPI_LONG_LONG, MPI_SUM, L_.world), "MPI_Allreduce (evaluations)");
  // The job's stop reason: the most significant over all islands (the target beats a spent
  // budget, which beats convergence), so a target met on island 3 is reported as such.
  static constexpr de::StopReason kByPriority[] = {
      de::StopReason::none, de::StopReason::converged, de::StopReason::max_generations,
      de::StopReason::max_evaluations, de::StopReason::time_limit, de::StopReason::target_cost};
  int mine_p = 0, job_p = 0;
  for (int p = 0; p < 6; ++p) {
    if (kByPriority[p] == local_status()) mine_p = p;
  }
  check(MPI_Allreduce(&mine_p, &job_p, 1, MPI_INT, MPI_MAX, L_.world), "MPI_Allreduce (reason)");
  S.reason = kByPriority[job_p];
  S.message = S.reason == de::StopReason::none ? "stopped with the other islands"
                                               : opt_.summary(S.reason).message;
  {
    std::vector<double> per_rank(static_cast<std::size_t>(L_.world_size));
    double b = opt_.state().cost.minCoeff();
    check(MPI_Allgather(&b, 1, MPI_DOUBLE, per_rank.data(), 1, MPI_DOUBLE, L_.world), "MPI_Allgather (bests)");
    for (int i = 0; i < L_.n_islands; ++i) {
      S.island_best.push_back(per_rank[static_cast<std::size_t>(i * L_.island_size)]);
    }
  }
  S.epochs = epoch;
  S.generations = opt_.state().generation;
  S.evaluations = static_cast<std::size_t>(total);
  S.seconds = now_s() - t0;
  S.migration_seconds = migration_s_;
  S.migrants_sent = sent_;
  S.migrants_received = received_;
  return S;
}

}  // namespace

IslandSummary run_islands(const IslandLayout& layout, std::size_t dim, const de::DeOptions& base,
                          const IslandOptions& options, const de::BatchObjective& objective,
                          const std::function<void(const EpochReport&)>& on_epoch) {
  options.validate(layout.world_size);
  Runner r(layout, dim, base, options, objective);
  return r.run(on_epoch);
}

}  // namespace perfit::island
