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
  // Every rank keeps the message: a batch group's leader records it whoever failed.
  int length = static_cast<int>(message.size());
  check(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast (agreed message length)");
  message.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast (agreed message)");
  throw AgreedError(message, code, rank == first);
}

}  // namespace perfit::mpi
