#include "perfit/core/worker_pool.hpp"

#include <utility>

#include "perfit/core/cpu_affinity.hpp"

namespace perfit {

WorkerPool::WorkerPool(unsigned threads, bool unbound) {
  for (unsigned t = 1; t < threads; ++t) team_.emplace_back([this, unbound] { serve(unbound); });
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  start_.notify_all();
  for (auto& t : team_) t.join();
}

// Indices are taken one at a time under the lock: each call is a whole set's selection
// (~100 us), so the lock is never what the threads wait for.
void WorkerPool::take_indices() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < n_ && !error_) {
    const std::size_t i = next_++;
    lock.unlock();
    try {
      (*work_)(i);
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      continue;
    }
    lock.lock();
  }
}

void WorkerPool::serve(bool unbound) {
  if (unbound) unbind_this_thread();
  unsigned long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return quit_ || loop_ != seen; });
      if (quit_) return;
      seen = loop_;
      ++busy_;
    }
    take_indices();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      --busy_;
    }
    done_.notify_one();
  }
}

void WorkerPool::for_each(std::size_t n, const std::function<void(std::size_t)>& work) {
  if (team_.empty()) {  // the caller alone: no lock, no wake-up
    for (std::size_t i = 0; i < n; ++i) work(i);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    work_ = &work;
    n_ = n;
    next_ = 0;
    error_ = nullptr;
    ++loop_;
  }
  start_.notify_all();
  take_indices();
  std::unique_lock<std::mutex> lock(mutex_);
  // Every index taken; wait for the calls still running on the team (a thread that wakes late
  // finds no index left and leaves at once).
  done_.wait(lock, [&] { return busy_ == 0; });
  // No index left for a thread that wakes after this returns: an error stops the loop with
  // indices untaken, and `work` is gone once the caller has it.
  next_ = n_ = 0;
  work_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace perfit
