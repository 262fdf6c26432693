// How many threads each rank may run: the CPUs it may use, shared fairly with the ranks of its
// node that may use the same CPUs (core/cpu_affinity.hpp's fair_cpu_share).
#pragma once

#include <mpi.h>

namespace perfit::mpi {

// Collective over world (MPI_COMM_NULL: this process alone, no MPI call). At least 1.
// Throws: MpiError.
unsigned rank_cpus(MPI_Comm world);

}  // namespace perfit::mpi
