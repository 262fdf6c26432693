#include "perfit/mpi/task_counter.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "perfit/fit/spread.hpp"
#include "support/mpi_world.hpp"

namespace perfit::mpi {

using test::world_rank;
using test::world_size;

TEST(TaskCounter, EveryTaskIsTakenByExactlyOneRankInOrder) {
  constexpr std::size_t n = 5000;
  TaskCounter counter(MPI_COMM_WORLD);
  ASSERT_TRUE(counter.shared());  // the test's ranks run on one node
  std::vector<int> taken(n, 0);
  std::size_t last = 0, mine = 0;
  for (std::size_t j = counter.next(); j < n; j = counter.next()) {
    if (mine++ > 0) {
      EXPECT_GT(j, last);
    }
    last = j;
    ++taken[j];
  }
  ASSERT_EQ(MPI_Allreduce(MPI_IN_PLACE, taken.data(), static_cast<int>(n), MPI_INT, MPI_SUM,
                          MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (std::size_t j = 0; j < n; ++j) ASSERT_EQ(taken[j], 1) << "task " << j;
}

// Not dealt out in advance: a rank that comes late finds every task taken by the others.
TEST(TaskCounter, ARankThatAsksLateFindsTheTasksTaken) {
  constexpr std::size_t n = 40;
  TaskCounter counter(MPI_COMM_WORLD);
  std::size_t mine = 0;
  if (world_rank() == 0) {
    while (counter.next() < n) ++mine;
  }
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  if (world_rank() != 0) {
    while (counter.next() < n) ++mine;
  }
  EXPECT_EQ(mine, world_rank() == 0 ? n : 0);
}

}  // namespace perfit::mpi

namespace perfit::fit {

using test::world_rank;

TEST(Spread, EveryRankGetsEveryBlockAsASerialRunWritesIt) {
  const std::vector<std::size_t> widths = {3, 1, 0, 4, 2, 5, 1, 1, 2};
  int runs = 0;
  const std::vector<double> packed =
      spread(MPI_COMM_WORLD, widths, [&](std::size_t j, double* out) {
        ++runs;
        for (std::size_t k = 0; k < widths[j]; ++k)
          out[k] = -0.5 + 10.0 * static_cast<double>(j) + static_cast<double>(k);
      });
  std::vector<double> expected;
  for (std::size_t j = 0; j < widths.size(); ++j) {
    for (std::size_t k = 0; k < widths[j]; ++k)
      expected.push_back(-0.5 + 10.0 * static_cast<double>(j) + static_cast<double>(k));
  }
  EXPECT_EQ(packed, expected) << "rank " << world_rank();
  ASSERT_EQ(MPI_Allreduce(MPI_IN_PLACE, &runs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(runs, static_cast<int>(widths.size()));
}

}  // namespace perfit::fit
