#include "perfit/mpi/environment.hpp"

#include <mpi.h>

#include <cstdlib>

#include "perfit/core/error.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::mpi {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv, ThreadLevel level, bool start_now)
    : argc_(argc), argv_(argv), level_(level) {
  if (start_now) start(level);
}

void MpiEnvironment::start(ThreadLevel level) {
  if (!initialized_) level_ = level;
  if (launched_by_process_manager()) ensure_initialized();
}

MpiEnvironment::~MpiEnvironment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_ && !finalized) MPI_Finalize();
}

bool MpiEnvironment::launched_by_process_manager() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("PMI_RANK") || std::getenv("SLURM_STEP_ID");
}

int MpiEnvironment::launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

void MpiEnvironment::ensure_initialized() {
  if (initialized_) return;
  int provided = 0;
  const int wanted = level_ == ThreadLevel::multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  if (MPI_Init_thread(argc_, argv_, wanted, &provided) != MPI_SUCCESS) {
    throw MpiError("MPI_Init_thread failed; is the job launched with mpiexec/srun correctly?");
  }
  // Errors come back as codes and become MpiError, instead of aborting inside MPI.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  initialized_ = true;
}

void abort_all(int exit_code) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
    MPI_Finalize();
  }
  std::exit(exit_code);
}

Communicator::~Communicator() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && !fin) MPI_Comm_free(&comm_);
}

int Communicator::rank() const {
  int r = 0;
  MPI_Comm_rank(comm_, &r);
  return r;
}

int Communicator::size() const {
  int s = 0;
  MPI_Comm_size(comm_, &s);
  return s;
}

void check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, buf, &len);
  throw MpiError(what + " failed: " + std::string(buf, static_cast<std::size_t>(len)));
}

}  // namespace perfit::mpi
