// MPI's lifetime. Created first in main(); it initialises MPI when the process was started by
// a process manager (mpiexec/srun set OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK) or when a
// command asks for it (ensure_initialized). Plain `perfit inspect` thus skips the ~0.9 s of a
// singleton MPI_Init. Finalises in the destructor.
#pragma once

namespace perfit::mpi {

// funneled: only the main thread calls MPI (every command but batch, whose rank 0 hands out
// fits from a second thread and so needs multiple).
enum class ThreadLevel { funneled, multiple };

class MpiEnvironment {
 public:
  MpiEnvironment(int* argc, char*** argv, ThreadLevel level = ThreadLevel::funneled);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  // Initialises MPI at the constructor's thread level if not yet done.
  // Throws: MpiError.
  void ensure_initialized();
  bool initialized() const { return initialized_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // True when started under mpiexec/srun.
  static bool launched_by_process_manager();

 private:
  int* argc_;
  char*** argv_;
  bool initialized_ = false;
  ThreadLevel level_;
  int rank_ = 0, size_ = 1;
};

// Ends every rank's job with this exit code (a failing rank must never leave others waiting).
[[noreturn]] void abort_all(int exit_code);

}  // namespace perfit::mpi
