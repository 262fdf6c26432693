// What a fit says while it runs (progress lines per generation or per epoch) and what it used
// (peak memory, kept in the result).
#pragma once

#include <mpi.h>

#include "perfit/island/island_model.hpp"

namespace perfit::job {

// The progress lines of a fit: per generation (one island) or per epoch (islands); rows: the
// fit's, for the row-evaluation rate.
void add_progress(island::RunHooks& hooks, const island::IslandLayout& layout, double rows);

// The largest peak resident set of the ranks of comm (MPI_COMM_NULL: this process), in MiB;
// collective over comm, the answer on rank 0. Throws: MpiError.
double peak_rss_mib(MPI_Comm comm);

}  // namespace perfit::job
