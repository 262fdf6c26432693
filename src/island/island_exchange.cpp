// Migration between islands: sync (neighbour collectives on a distributed-graph communicator
// at each epoch) and async (non-blocking sends, arrivals whenever present, a final drain).
#include "island_runner.hpp"

namespace perfit::island::detail {

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
  Rng rng = Rng::derive(
      seed_, 0x51A7000000ULL + static_cast<std::uint64_t>(L_.island) * 1000003ULL + epoch);
  de::DeState s = opt_.state();
  received_ += accept_immigrants(s, buf, dim_, o_.replace, rng);
  opt_.set_state(std::move(s));
}

std::vector<double> Runner::emigrants(std::size_t epoch) {
  Rng rng = Rng::derive(seed_,
                        0xE1000000ULL + static_cast<std::uint64_t>(L_.island) * 1000003ULL + epoch);
  // An island whose population shrank (L-SHADE) or is small (per-island options) sends fewer.
  const std::size_t k =
      std::min<std::size_t>(o_.migrants, static_cast<std::size_t>(opt_.state().pop.cols()));
  return select_emigrants(opt_.state(), k, o_.emigrants, rng);
}

void Runner::migrate_sync(std::size_t epoch) {
  std::vector<double> arrivals;
  if (L_.leader() && L_.n_islands > 1) {
    const Topology t = make_topology(o_.topology, L_.n_islands, seed_, epoch);
    const auto& in = t.in[static_cast<std::size_t>(L_.island)];
    const auto& out = t.out[static_cast<std::size_t>(L_.island)];
    MPI_Comm graph = MPI_COMM_NULL;
    check(MPI_Dist_graph_create_adjacent(L_.leaders_comm.get(), static_cast<int>(in.size()),
                                         in.data(), MPI_UNWEIGHTED, static_cast<int>(out.size()),
                                         out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph),
          "MPI_Dist_graph_create_adjacent");
    mpi::Communicator g(graph);
    const std::vector<double> mine = emigrants(epoch);
    // Counts first: islands may send different numbers of migrants.
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(in.size()), displs(in.size());
    check(MPI_Neighbor_allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, g.get()),
          "MPI_Neighbor_allgather (migrant counts)");
    int total = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      displs[i] = total;
      total += counts[i];
    }
    arrivals.resize(static_cast<std::size_t>(total));
    check(MPI_Neighbor_allgatherv(mine.data(), count, MPI_DOUBLE, arrivals.data(), counts.data(),
                                  displs.data(), MPI_DOUBLE, g.get()),
          "MPI_Neighbor_allgatherv (migrants)");
    sent_ += out.empty() ? 0 : mine.size() / stride_;
  }
  apply(arrivals, epoch);
}

void Runner::post_async(std::size_t epoch) {
  if (!L_.leader() || L_.n_islands < 2) return;
  const Topology t = make_topology(o_.topology, L_.n_islands, seed_, epoch);
  const std::vector<double> mine = emigrants(epoch);
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
    while (received_from_[static_cast<std::size_t>(src)] <
           incoming[static_cast<std::size_t>(src)]) {
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
  check(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(),
                    MPI_STATUSES_IGNORE),
        "MPI_Waitall (sends)");
  send_requests_.clear();
  send_buffers_.clear();
}

}  // namespace perfit::island::detail
