// The next task of a list, taken by whichever rank of a communicator asks first: a counter in
// memory that the ranks of one node share (an MPI-3 shared window), incremented atomically, so
// that a rank on a slower core takes fewer tasks and no rank answers requests. Ranks on several
// nodes share no memory: shared() is then false and the caller deals the tasks out itself.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "perfit/mpi/communicator.hpp"

namespace perfit::mpi {

class TaskCounter {
 public:
  // Collective over comm. Throws: MpiError.
  explicit TaskCounter(MPI_Comm comm);
  TaskCounter(const TaskCounter&) = delete;
  TaskCounter& operator=(const TaskCounter&) = delete;

  // Every rank of comm on one node: next() may be called.
  bool shared() const { return counter_ != nullptr; }
  // 0, 1, 2, ... over all ranks together, each value once; no MPI call.
  std::size_t next();

 private:
  // Sole owner of the shared window, in its passive epoch once locked; freeing it is collective.
  struct Window {
    MPI_Win win = MPI_WIN_NULL;
    bool locked = false;
    Window() = default;
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;
    ~Window();
  };
  Communicator node_;  // comm's ranks on this node
  Window window_;
  std::int64_t* counter_ = nullptr;  // node rank 0's, mapped into every rank
};

}  // namespace perfit::mpi
