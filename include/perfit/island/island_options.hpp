// Options of the MPI island model (docs/islands.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/core/option_table.hpp"
#include "perfit/de/de_options.hpp"
#include "perfit/island/migration.hpp"
#include "perfit/island/topology.hpp"

namespace perfit::island {

enum class MigrationMode {
  sync,  // epoch barrier, neighbour collectives: same seed + same rank count -> same result
  async  // non-blocking sends; an island never waits for a slow neighbour
};

MigrationMode parse_migration_mode(const std::string& s);  // Throws: ConfigError
const char* to_string(MigrationMode m);

struct IslandOptions {
  TopologySpec topology;
  std::size_t interval = 20;  // generations per epoch (between migrations)
  std::size_t migrants = 2;   // emigrants per island per epoch
  EmigrantPolicy emigrants = EmigrantPolicy::best;
  ReplacePolicy replace = ReplacePolicy::fair;
  MigrationMode mode = MigrationMode::sync;
  // Ranks sharing one population, each evaluating a slice of the rows. 0 (auto): all ranks in
  // one island when the search has at most kShardedSearchDims dimensions (variable projection
  // leaves 1-2: a population of 20 needs no islands, and sharding halves every per-rank cost,
  // loading and metrics included), else 1 (an island per rank).
  int ranks_per_island = 0;
  static constexpr std::size_t kShardedSearchDims = 3;
  // Islands share the population budget: with de.population auto (0), each of N islands gets
  // max(kMinSharedPopulation, ceil(auto / N)) individuals, so two islands search with the
  // evaluations one would (docs/islands.md); false: every island the full auto population.
  bool share_population = true;
  static constexpr std::size_t kMinSharedPopulation = 20;
  // Heterogeneous islands: island i uses per_island[i % size] (empty: all use the base).
  std::vector<de::DeOptions> per_island;
  // Fault injection for tests and experiments: island `slow_island` sleeps slow_ms per
  // generation (-1: none).
  int slow_island = -1;
  double slow_ms = 0.0;

  // Throws: ConfigError naming the option (world_size must split into islands).
  void validate(int world_size) const;
};

// Every IslandOptions field a user sets except per_island (RunConfig resolves that one from
// the final base DE options); keys without the "islands." prefix.
const OptionTable<IslandOptions>& island_option_table();

// The population of each of n_islands islands (de.population, or its auto value shared).
// The ranks per island in effect (resolves auto, see ranks_per_island).
int resolve_ranks_per_island(const IslandOptions& o, int world_size, std::size_t search_dims);

std::size_t population_per_island(const de::DeOptions& de, const IslandOptions& o, int n_islands,
                                  std::size_t dim);

}  // namespace perfit::island
