#include "perfit/mpi/idle_wait.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

#include "support/mpi_world.hpp"

namespace perfit::mpi {

using test::world_rank;
using test::world_size;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

// Rank 0 keeps busy (as when it writes a selection store) before it broadcasts; the others get
// the value, having spent a small share of their wait on the CPU (a blocking MPI_Bcast polls:
// ~100%).
TEST(IdleWait, TheOtherRanksGetTheValueWithoutSpinning) {
  using Clock = std::chrono::steady_clock;
  int value = world_rank() == 0 ? 42 : 0;
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD),
            MPI_SUCCESS);  // every rank's clock starts with rank 0's work
  const auto start = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  if (world_rank() == 0) {
    volatile double x = 0.0;
    while (Clock::now() - start < std::chrono::milliseconds(400)) x = x + 1.0;
  }
  bcast_idle(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, "MPI_Ibcast (test)");
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = thread_cpu_seconds() - cpu0;
  EXPECT_EQ(value, 42);
  if (world_rank() > 0) {
    EXPECT_GE(wall, 0.1) << "rank " << world_rank() << " did not wait for rank 0";
    EXPECT_LT(cpu, 0.5 * wall) << "rank " << world_rank() << " spent " << cpu << " s of CPU in a "
                               << wall << " s wait";
  }
}

TEST(IdleWait, ANonblockingCollectiveCompletes) {
  int value = world_rank() + 1;
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request),
            MPI_SUCCESS);
  wait_idle(request, "MPI_Iallreduce (test)");
  EXPECT_EQ(value, world_size() * (world_size() + 1) / 2);
  EXPECT_EQ(request, MPI_REQUEST_NULL);
}

}  // namespace perfit::mpi
