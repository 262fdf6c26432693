#include "perfit/mpi/rank_cpus.hpp"

#include <vector>

#include "perfit/core/cpu_affinity.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::mpi {

unsigned rank_cpus(MPI_Comm world) {
  const cpu_set_t mine = this_thread_cpus();
  if (world == MPI_COMM_NULL) return fair_cpu_share(mine, {mine});
  MPI_Comm raw = MPI_COMM_NULL;
  check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &raw),
        "MPI_Comm_split_type (ranks of this node)");
  const Communicator node(raw);
  std::vector<cpu_set_t> sets(static_cast<std::size_t>(node.size()));
  check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, sets.data(), sizeof mine, MPI_BYTE, node.get()),
        "MPI_Allgather (CPUs of this node's ranks)");
  return fair_cpu_share(mine, sets);
}

}  // namespace perfit::mpi
