// The batch scheduler at 1, 2 and 4 ranks: every task runs once, on every rank of one group
// together; records reach rank 0 in order of finishing; a stop ends the hand-out; an error in
// rank 0's handler comes back on rank 0 after every group has left.
#include "perfit/batch/scheduler.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "perfit/core/error.hpp"
#include "support/mpi_world.hpp"

namespace perfit::batch {

using test::world_rank;
using test::world_size;

namespace {

std::vector<std::size_t> tasks(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

// Each task: the group's ranks agree on it (an allreduce in the group), sleep a little (odd
// tasks longer), and the leader's record names the task and the world ranks of its group.
std::string run(std::size_t task, MPI_Comm group) {
  std::string members = std::to_string(world_rank());
  if (group != MPI_COMM_NULL) {
    long t = static_cast<long>(task), lo = 0, hi = 0;
    MPI_Allreduce(&t, &lo, 1, MPI_LONG, MPI_MIN, group);
    MPI_Allreduce(&t, &hi, 1, MPI_LONG, MPI_MAX, group);
    EXPECT_EQ(lo, hi) << "the ranks of a group ran different tasks";
    int gs = 1;
    MPI_Comm_size(group, &gs);
    std::vector<int> ranks(static_cast<std::size_t>(gs));
    int me = world_rank();
    MPI_Gather(&me, 1, MPI_INT, ranks.data(), 1, MPI_INT, 0, group);
    members.clear();
    for (int r : ranks) members += std::to_string(r) + ",";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(task % 2 ? 8 : 2));
  return std::to_string(task) + ":" + members;
}

}  // namespace

class Scheduler : public ::testing::TestWithParam<int> {};

TEST_P(Scheduler, EveryTaskRunsOnceOnAWholeGroup) {
  const int per_group = GetParam();
  if (world_size() % per_group != 0) GTEST_SKIP() << "world not divisible";
  std::vector<int> seen(23, 0);
  std::set<std::string> groups;
  ScheduleHooks h;
  h.run = run;
  h.finished = [&](std::size_t task, std::string_view record) {
    ++seen.at(task);
    EXPECT_EQ(record.substr(0, record.find(':')), std::to_string(task));
    groups.insert(std::string(record.substr(record.find(':') + 1)));
  };
  const MPI_Comm world = world_size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
  const ScheduleResult r = run_schedule(world, per_group, tasks(23), h);
  if (world_rank() == 0) {
    EXPECT_EQ(r.started, 23u);
    EXPECT_EQ(r.finished, 23u);
    for (int n : seen) EXPECT_EQ(n, 1);
    // Dynamic hand-out: with 23 tasks every group got some.
    EXPECT_EQ(groups.size(), static_cast<std::size_t>(world_size() / per_group));
  }
}

INSTANTIATE_TEST_SUITE_P(RanksPerGroup, Scheduler, ::testing::Values(1, 2));

// Tasks handed out before the stop still run: one per group, and one more that each remote
// leader holds in hand.
TEST(SchedulerStop, NoTaskIsHandedOutAfterAStop) {
  std::size_t finished = 0;
  ScheduleHooks h;
  h.run = run;
  h.finished = [&](std::size_t, std::string_view) { ++finished; };
  h.stop_requested = [&] { return finished >= 3; };
  const MPI_Comm world = world_size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
  const ScheduleResult r = run_schedule(world, 1, tasks(40), h);
  if (world_rank() == 0) {
    EXPECT_EQ(r.started, r.finished);
    EXPECT_GE(r.finished, 3u);
    EXPECT_LE(r.finished, 3u + 2u * static_cast<std::size_t>(world_size()));
  }
}

TEST(SchedulerStop, AnErrorInTheHandlerComesBackOnRankZero) {
  ScheduleHooks h;
  h.run = run;
  h.finished = [&](std::size_t task, std::string_view) {
    if (task == 2) throw IoError("summary: disk full");
  };
  const MPI_Comm world = world_size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
  if (world_rank() == 0) {
    EXPECT_THROW(run_schedule(world, 1, tasks(10), h), IoError);
  } else {
    EXPECT_NO_THROW(run_schedule(world, 1, tasks(10), h));
  }
}

TEST(SchedulerStop, AWorldThatDoesNotSplitIsRefusedEverywhere) {
  ScheduleHooks h;
  h.run = run;
  const MPI_Comm world = world_size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
  EXPECT_THROW(run_schedule(world, world_size() + 1, tasks(3), h), ConfigError);
}

}  // namespace perfit::batch
