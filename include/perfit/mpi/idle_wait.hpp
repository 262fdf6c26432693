// Collectives for ranks that may wait seconds while rank 0 writes files. Open MPI's blocking
// calls poll: a rank waiting in MPI_Bcast spins a core, on a two-core node the one that rank 0's
// writer thread needs (a selection over 2*10^5 sets ends with rank 0 writing for seconds while
// the others wait for the exit code). These poll with MPI_Test and sleep in between, backing
// off from 50 us to 5 ms: an answer within ~5 ms, next to no CPU.
#pragma once

#include <mpi.h>

#include <string>

namespace perfit::mpi {

// MPI_Bcast, waiting idly. Throws: MpiError naming `what`.
void bcast_idle(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm,
                const std::string& what);

// Waits for `request` idly. Throws: MpiError naming `what`.
void wait_idle(MPI_Request& request, const std::string& what);

}  // namespace perfit::mpi
