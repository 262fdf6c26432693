// Checks that every rank runs before the first collective of a job, agreed on together: if any
// rank fails, all ranks stop with the same exit code and only the lowest failing rank prints
// its message. A validation error thus reads as one line, not one per rank, and no rank is
// left waiting in a collective the others never reach.
#pragma once

#include <mpi.h>

#include <functional>

namespace perfit::mpi {

// Runs fn (which must not call collectives on comm) on every rank of comm, then agrees.
// Throws: AgreedError on every rank when fn threw perfit::Error on any (print() only on the
// lowest failing rank, whose message every rank carries); MpiError if the agreement fails.
void all_or_none(MPI_Comm comm, const std::function<void()>& fn);

}  // namespace perfit::mpi
