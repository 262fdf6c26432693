// Sole owner of a communicator perfit created (split, graph); move-only, frees it on
// destruction. Never wraps MPI_COMM_WORLD.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>

namespace perfit::mpi {

class Communicator {
 public:
  Communicator() = default;
  explicit Communicator(MPI_Comm c) : comm_(c) {}
  Communicator(Communicator&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator o) noexcept {
    std::swap(comm_, o.comm_);
    return *this;
  }
  Communicator(const Communicator&) = delete;
  ~Communicator();

  MPI_Comm get() const { return comm_; }
  int rank() const;
  int size() const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Throws: MpiError "<what> failed: <MPI error string>" unless rc == MPI_SUCCESS.
void check(int rc, const std::string& what);

}  // namespace perfit::mpi
