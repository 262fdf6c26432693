#include "perfit/mpi/agreement.hpp"

#include "perfit/core/error.hpp"
#include "perfit/mpi/communicator.hpp"

namespace perfit::mpi {

void all_or_none(MPI_Comm comm, const std::function<void()>& fn) {
  int rank = 0, size = 1;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::string message;
  int code = 0;
  try {
    fn();
  } catch (const AgreedError&) {
    throw;
  } catch (const Error& e) {
    message = e.what();
    code = e.exit_code();
  }
  // The lowest failing rank: MIN over (failed ? rank : size).
  int mine = code != 0 ? rank : size, first = size;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce (agreement)");
  if (first == size) return;
  check(MPI_Bcast(&code, 1, MPI_INT, first, comm), "MPI_Bcast (agreed exit code)");
  throw AgreedError(rank == first ? message : "failed on rank " + std::to_string(first), code,
                    rank == first);
}

}  // namespace perfit::mpi
