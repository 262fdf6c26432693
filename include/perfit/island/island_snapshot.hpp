// One island's complete state as a flat array of 64-bit words (doubles bit-cast), so that it
// travels through MPI and into an HDF5 checkpoint without a single bit changing: a run
// restored from it continues exactly as the uninterrupted run would have.
#pragma once

#include <cstdint>
#include <vector>

#include "perfit/de/optimizer.hpp"

namespace perfit::island {

struct IslandSnapshot {
  de::DeState state;
  std::size_t epoch_end_generation = 0;  // the generation the current epoch runs to
  double seconds = 0.0;                  // wall time spent so far (max_seconds continues)
};

std::vector<std::uint64_t> to_words(const IslandSnapshot& s);
// Throws: DataError when the words are not a snapshot of this dimension (a corrupt checkpoint).
IslandSnapshot from_words(const std::vector<std::uint64_t>& w, std::size_t dim);

// What the job as a whole had done at a checkpoint (world rank 0's view, identical on every
// leader in sync mode).
struct JobSnapshot {
  std::size_t epochs_done = 0;  // epochs completed and voted on
  std::vector<double> history;  // global best after each epoch
  double seconds = 0.0;
};

}  // namespace perfit::island
