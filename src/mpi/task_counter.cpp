#include "perfit/mpi/task_counter.hpp"

#include <atomic>

namespace perfit::mpi {

TaskCounter::TaskCounter(MPI_Comm comm) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type (task counter)");
  node_ = Communicator(node);
  int everywhere = node_.size() == size ? 1 : 0;  // the same answer on every rank
  check(MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm),
        "MPI_Allreduce (task counter)");
  if (!everywhere) return;
  const bool first = node_.rank() == 0;
  void* mine = nullptr;
  check(MPI_Win_allocate_shared(first ? sizeof(std::int64_t) : 0, sizeof(std::int64_t),
                                MPI_INFO_NULL, node, &mine, &window_.win),
        "MPI_Win_allocate_shared (task counter)");
  MPI_Aint bytes = 0;
  int unit = 0;
  void* at = nullptr;
  check(MPI_Win_shared_query(window_.win, 0, &bytes, &unit, &at), "MPI_Win_shared_query");
  // One passive epoch for the counter's life: the atomics order the increments; the zero is
  // written before any rank counts (Win_sync on both sides of the barrier).
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_.win), "MPI_Win_lock_all (task counter)");
  window_.locked = true;
  auto* counter = static_cast<std::int64_t*>(at);
  if (first) std::atomic_ref<std::int64_t>(*counter).store(0);
  check(MPI_Win_sync(window_.win), "MPI_Win_sync");
  check(MPI_Barrier(node), "MPI_Barrier (task counter)");
  check(MPI_Win_sync(window_.win), "MPI_Win_sync");
  counter_ = counter;
}

TaskCounter::Window::~Window() {
  // No throw from a destructor: a failure here ends the job with Open MPI's own error.
  if (locked) MPI_Win_unlock_all(win);
  if (win != MPI_WIN_NULL) MPI_Win_free(&win);
}

std::size_t TaskCounter::next() {
  return static_cast<std::size_t>(std::atomic_ref<std::int64_t>(*counter_).fetch_add(1));
}

}  // namespace perfit::mpi
