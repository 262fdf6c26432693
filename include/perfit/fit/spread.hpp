// Many independent fits over the ranks of a communicator: each task runs on one rank (the next
// free one when the ranks share a node, else task j on rank j % size) and writes a fixed-size
// block of doubles; one sum over the ranks then gives every rank every block (non-owners leave
// zeros). Validation folds, lambda: auto, a joint fit's strengths and bootstrap replicates use
// it; the answer depends neither on the number of ranks nor on which rank ran a task.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::fit {

// widths[j]: the doubles task j writes. run(j, out) fills out[0..widths[j]) and must not call
// collectives on comm. Collective over comm (MPI_COMM_NULL: serial). Returns the blocks one
// after the other. Throws: AgreedError on every rank when run threw perfit::Error on any.
std::vector<double> spread(MPI_Comm comm, const std::vector<std::size_t>& widths,
                           const std::function<void(std::size_t, double*)>& run);

// The rows of every rank's slice on every rank of comm (numeric columns, as float64), in rank
// order: the whole set, before fits on resampled or held-out rows are spread. Collective.
std::shared_ptr<const data::MeasurementTable> gather_rows(const data::MeasurementTable& t,
                                                          MPI_Comm comm);

}  // namespace perfit::fit
