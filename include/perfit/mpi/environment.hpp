// MPI's lifetime. Created first in main(); it initialises MPI when the process was started by
// a process manager (mpiexec/srun set OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK) or when a
// command asks for it (ensure_initialized). Plain `perfit inspect` thus skips the ~0.9 s of a
// singleton MPI_Init. main() defers the start until the command line is parsed, so that the
// chosen command's thread level is the one asked for. Finalises in the destructor.
#pragma once

namespace perfit::mpi {

// funneled: only the main thread calls MPI; multiple: a command whose rank 0 hands out work
// from a second thread (batch, select over many sets) declares it.
enum class ThreadLevel { funneled, multiple };

class MpiEnvironment {
 public:
  // start_now: as start(level) at once; else nothing happens until start().
  MpiEnvironment(int* argc, char*** argv, ThreadLevel level = ThreadLevel::funneled,
                 bool start_now = true);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  // Sets the thread level and initialises MPI when started by a process manager.
  // Throws: MpiError.
  void start(ThreadLevel level);
  // Initialises MPI at the thread level of the constructor or start() if not yet done.
  // Throws: MpiError.
  void ensure_initialized();
  bool initialized() const { return initialized_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // True when started under mpiexec/srun.
  static bool launched_by_process_manager();
  // This process's rank as the process manager set it (0 without one): who speaks before MPI
  // is initialised (help, a bad command line).
  static int launcher_rank();

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
