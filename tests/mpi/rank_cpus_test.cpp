#include "perfit/mpi/rank_cpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "perfit/core/cpu_affinity.hpp"
#include "support/mpi_world.hpp"

namespace perfit::mpi {

using test::world_size;

// However mpiexec placed the ranks (bound to a core each with up to two ranks, unbound when
// oversubscribed), the threads they run together never outnumber the CPUs they may use, unless
// every rank runs its one thread; and a rank alone runs one per CPU.
TEST(RankCpus, TheRanksOfANodeNeverOversubscribeItsCpus) {
  const unsigned mine = rank_cpus(MPI_COMM_WORLD);
  EXPECT_GE(mine, 1u);
  cpu_set_t cpus = this_thread_cpus(), every;
  ASSERT_EQ(MPI_Allreduce(&cpus, &every, sizeof cpus, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD),
            MPI_SUCCESS);
  unsigned total = 0;
  ASSERT_EQ(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  const unsigned cpus_used = static_cast<unsigned>(CPU_COUNT(&every));
  EXPECT_LE(total, std::max(cpus_used, static_cast<unsigned>(world_size())));
  if (world_size() == 1) {
    EXPECT_EQ(mine, static_cast<unsigned>(CPU_COUNT(&cpus)));
  }
  EXPECT_EQ(rank_cpus(MPI_COMM_NULL), fair_cpu_share(cpus, {cpus}));
}

}  // namespace perfit::mpi
