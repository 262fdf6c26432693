#include "perfit/core/worker_pool.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "perfit/core/cpu_affinity.hpp"

namespace perfit {

TEST(WorkerPool, EveryIndexRunsOnceOnEveryLoop) {
  WorkerPool pool(3);
  EXPECT_EQ(pool.threads(), 3u);
  for (int loop = 0; loop < 200; ++loop) {  // loops back to back: no index lost or repeated
    const std::size_t n = static_cast<std::size_t>(loop % 7);
    std::vector<std::atomic<int>> calls(n);
    pool.for_each(n, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(calls[i].load(), 1) << "loop " << loop;
  }
}

TEST(WorkerPool, TheWorkIsSharedAmongItsThreads) {
  WorkerPool pool(2);
  std::mutex m;
  std::set<std::thread::id> who;
  std::atomic<int> waiting{2};
  // Each of the first two calls waits for the other: they can only both return on two threads.
  pool.for_each(2, [&](std::size_t) {
    {
      const std::lock_guard<std::mutex> lock(m);
      who.insert(std::this_thread::get_id());
    }
    --waiting;
    while (waiting.load() > 0) std::this_thread::yield();
  });
  EXPECT_EQ(who.size(), 2u);
}

// As rank 0 under mpiexec (bound to one core) writing its store: an unbound pool's threads run
// on every CPU of the process, the caller stays where it was bound.
TEST(WorkerPool, AnUnboundPoolsThreadsRunOnEveryCpuOfTheProcess) {
  const unsigned every = unbound_cpus();
  ASSERT_GE(every, 1u);
  std::thread bound([&] {
    cpu_set_t one = this_thread_cpus();
    int first = 0;
    while (!CPU_ISSET(first, &one)) ++first;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(::pthread_setaffinity_np(::pthread_self(), sizeof one, &one), 0);
    WorkerPool pool(2, true);
    std::mutex m;
    std::vector<int> seen;
    std::atomic<int> waiting{2};
    pool.for_each(2, [&](std::size_t) {  // both calls at once: one on the caller, one on the team
      const cpu_set_t mine = this_thread_cpus();
      {
        const std::lock_guard<std::mutex> lock(m);
        seen.push_back(CPU_COUNT(&mine));
      }
      --waiting;
      while (waiting.load() > 0) std::this_thread::yield();
    });
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{1, static_cast<int>(every)}));
  });
  bound.join();
}

TEST(WorkerPool, OneThreadIsTheCallerAlone) {
  for (unsigned t : {0u, 1u}) {
    WorkerPool pool(t);
    EXPECT_EQ(pool.threads(), 1u);
    std::vector<std::thread::id> who;
    pool.for_each(4, [&](std::size_t) { who.push_back(std::this_thread::get_id()); });
    EXPECT_EQ(who, std::vector<std::thread::id>(4, std::this_thread::get_id()));
  }
}

TEST(WorkerPool, AThrowingCallStopsTheLoopAndIsRethrown) {
  WorkerPool pool(2);
  std::atomic<int> after{0};
  EXPECT_THROW(pool.for_each(100000,
                             [&](std::size_t i) {
                               if (i == 3) throw std::runtime_error("set 3");
                               if (i > 1000) ++after;
                             }),
               std::runtime_error);
  EXPECT_LT(after.load(), 99000);  // no further index started once the error was seen
  std::atomic<int> again{0};
  pool.for_each(10, [&](std::size_t) { ++again; });  // the pool is usable after an error
  EXPECT_EQ(again.load(), 10);
}

// A call that throws stops the loop with indices left; a thread of the team that wakes only
// after the caller returned must find none left (it once took the next index and called the
// caller's work, gone by then: a crash about once in a thousand loops).
TEST(WorkerPool, AThreadWakingAfterAnErrorFindsNothingToDo) {
  for (int k = 0; k < 3000; ++k) {
    WorkerPool pool(2);
    EXPECT_THROW(pool.for_each(1000, [](std::size_t) { throw std::runtime_error("every set"); }),
                 std::runtime_error);
  }
}

}  // namespace perfit
