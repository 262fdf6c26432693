#include "perfit/core/cpu_affinity.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <thread>

namespace perfit {

namespace {

int cpus_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::pthread_getaffinity_np(::pthread_self(), sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

}  // namespace

// As under `mpiexec` (Open MPI binds each rank to a core): a thread bound to one CPU gets back
// every CPU the process could use before it was bound.
TEST(CpuAffinity, AThreadBoundToOneCoreGetsEveryAllowedCpuBack) {
  const int allowed = cpus_of_this_thread();
  ASSERT_GT(allowed, 0);
  int bound = 0, after = 0;
  bool unbound = false;
  std::thread t([&] {
    cpu_set_t one;
    ::pthread_getaffinity_np(::pthread_self(), sizeof one, &one);
    int first = 0;
    while (!CPU_ISSET(first, &one)) ++first;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(::pthread_setaffinity_np(::pthread_self(), sizeof one, &one), 0);
    bound = cpus_of_this_thread();
    unbound = unbind_this_thread();
    after = cpus_of_this_thread();
  });
  t.join();
  EXPECT_EQ(bound, 1);
  EXPECT_TRUE(unbound);
  EXPECT_GE(after, allowed);
}

namespace {

cpu_set_t cpus(std::initializer_list<int> ids) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int id : ids) CPU_SET(id, &set);
  return set;
}

}  // namespace

TEST(CpuAffinity, RanksBoundToTheirOwnCoresKeepThemAll) {
  const std::vector<cpu_set_t> node = {cpus({0, 1, 2, 3}), cpus({4, 5, 6, 7})};
  EXPECT_EQ(fair_cpu_share(node[0], node), 4u);
  EXPECT_EQ(fair_cpu_share(cpus({0}), {cpus({0}), cpus({1})}), 1u);
}

TEST(CpuAffinity, UnboundRanksShareTheNodesCpus) {
  const cpu_set_t all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(fair_cpu_share(all, {all, all}), 4u);
  EXPECT_EQ(fair_cpu_share(all, {all, all, all}), 2u);
  EXPECT_EQ(fair_cpu_share(cpus({0, 1}), {cpus({0, 1}), cpus({0, 1}), cpus({0, 1}), cpus({0, 1})}),
            1u);  // four ranks on two cores (oversubscribed): one thread each, never zero
}

TEST(CpuAffinity, ASingleProcessUsesEveryCpuItMay) {
  const cpu_set_t mine = this_thread_cpus();
  EXPECT_GT(CPU_COUNT(&mine), 0);
  EXPECT_EQ(fair_cpu_share(mine, {mine}), static_cast<unsigned>(CPU_COUNT(&mine)));
}

}  // namespace perfit
