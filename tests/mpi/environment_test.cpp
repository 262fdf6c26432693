// MpiEnvironment owns MPI's lifetime, so it is tested in a program of its own (no MPI main):
// started by mpiexec it initialises MPI at once, with errors returned as codes, and knows its
// rank and size; started plainly it leaves MPI alone until a command asks for it; either way
// MPI is finalised when it goes. Exit 0 on success, 1 with a line per failed check.
#include "perfit/mpi/environment.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

int initialized() {
  int f = 0;
  MPI_Initialized(&f);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  using perfit::mpi::MpiEnvironment;
  const bool launched = MpiEnvironment::launched_by_process_manager();
  check(launched == (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr),
        "launched_by_process_manager() disagrees with mpiexec's environment");
  {
    // As main() does: nothing before the command line is parsed, then the command's level.
    MpiEnvironment env(&argc, &argv, perfit::mpi::ThreadLevel::funneled, false);
    check(!env.initialized() && initialized() == 0, "a deferred environment waits for start()");
    env.start(perfit::mpi::ThreadLevel::multiple);
    check(env.initialized() == launched, "MPI initialised iff started by a process manager");
    if (launched) {
      int provided = -1;
      MPI_Query_thread(&provided);
      check(provided == MPI_THREAD_MULTIPLE,
            "start() initialises MPI at the thread level it was given");
    }
    check(initialized() == (launched ? 1 : 0), "MPI_Initialized matches initialized()");
    env.ensure_initialized();  // what `perfit fit` does when started without mpiexec
    check(env.initialized() && initialized(), "ensure_initialized initialises MPI");
    env.ensure_initialized();  // a second call is a no-op
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(env.rank() == rank && env.size() == size, "rank() and size() are MPI_COMM_WORLD's");
    check(MpiEnvironment::launcher_rank() == rank,
          "launcher_rank() is the rank MPI gives (0 without mpiexec)");
    if (launched) {
      const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
      check(size == std::atoi(n), "the world has mpiexec's size");
    }
    // Errors come back as codes (and become MpiError), not an abort inside MPI.
    int bad = MPI_Send(nullptr, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    check(bad != MPI_SUCCESS, "an invalid rank returns an error code instead of aborting");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  check(finalized == 1, "MPI is finalised when the environment goes");
  if (failures == 0)
    std::printf("environment: all checks passed (launched=%d)\n", launched ? 1 : 0);
  return failures == 0 ? 0 : 1;
}
