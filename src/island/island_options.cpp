#include "perfit/island/island_options.hpp"

#include "perfit/core/error.hpp"

namespace perfit::island {

void IslandOptions::validate(int world_size) const {
  if (ranks_per_island < 1) {
    throw ConfigError("islands.ranks_per_island must be >= 1, got " + std::to_string(ranks_per_island));
  }
  if (world_size % ranks_per_island != 0) {
    throw ConfigError("the job has " + std::to_string(world_size) + " ranks, which do not split into "
                      "islands of ranks_per_island=" + std::to_string(ranks_per_island) +
                      "; use a rank count that is a multiple of it");
  }
  if (interval == 0) throw ConfigError("islands.interval (generations per epoch) must be >= 1");
  if (slow_ms < 0) throw ConfigError("islands.slow_ms must be >= 0");
  make_topology(topology, world_size / ranks_per_island, 0, 0);  // throws on a bad topology
}

}  // namespace perfit::island
