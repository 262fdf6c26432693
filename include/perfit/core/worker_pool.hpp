// A team of threads that runs one indexed loop at a time, for work made of many independent
// pieces (a selection over many sets: each rank selects its sets on the CPUs it may use).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace perfit {

class WorkerPool {
 public:
  // threads: the loop's threads, the calling thread among them (0 and 1: the caller alone, no
  // thread started). unbound: the started threads may run on every CPU of the process's cpuset
  // (core/cpu_affinity.hpp), not only on the core mpiexec bound the caller to: for work done
  // while the node's other ranks wait (rank 0 writing a selection store).
  explicit WorkerPool(unsigned threads, bool unbound = false);
  ~WorkerPool();  // joins the threads; never throws
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(team_.size()) + 1; }

  // Calls work(i) once for each i in [0, n), spread over the threads, and returns when every
  // call has returned. Once a call throws no further index starts; the first exception is
  // rethrown here. One loop at a time (not reentrant).
  void for_each(std::size_t n, const std::function<void(std::size_t)>& work);

 private:
  void serve(bool unbound);  // a team thread's life
  void take_indices();

  std::vector<std::thread> team_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(std::size_t)>* work_ = nullptr;
  std::size_t n_ = 0, next_ = 0;
  unsigned busy_ = 0;       // team threads inside the current loop
  unsigned long loop_ = 0;  // bumped per for_each: a team thread joins each loop once
  bool quit_ = false;
  std::exception_ptr error_;
};

}  // namespace perfit
