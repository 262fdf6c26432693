// Splitting a pass over blocks of rows among threads, for the evaluators. Private to model/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace perfit::model::detail {

// Few blocks per thread: the thread start-up would cost more than it saves.
inline std::size_t threads_for(std::size_t wanted, std::size_t n_blocks) {
  return std::max<std::size_t>(1, std::min<std::size_t>(wanted, n_blocks / 8));
}

// Runs work(t) for t in [0, threads), t = 0 on the calling thread. Callers give each t its own
// partial result and combine them in t order, so the same thread count gives the same bits.
template <class Work>
void run_threads(std::size_t threads, Work&& work) {
  if (threads <= 1) {
    work(std::size_t{0});
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(std::size_t{0});
  for (auto& th : pool) th.join();
}

}  // namespace perfit::model::detail
