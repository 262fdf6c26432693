#include "perfit/island/island_options.hpp"

#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::island {

MigrationMode parse_migration_mode(const std::string& s) {
  if (s == "sync") return MigrationMode::sync;
  if (s == "async") return MigrationMode::async;
  throw ConfigError("mode '" + s + "' is not one of sync, async");
}

const char* to_string(MigrationMode m) { return m == MigrationMode::sync ? "sync" : "async"; }

namespace {

// "1,2;0;0": island i's out-neighbours, islands separated by ';'.
std::vector<std::vector<int>> parse_adjacency(const std::string& text) {
  const std::string expected = "rows of island indices, e.g. 1,2;0;0 (YAML: [[1, 2], [0], [0]])";
  std::vector<std::vector<int>> rows;
  std::stringstream all(text);
  std::string row;
  while (std::getline(all, row, ';')) {
    std::vector<int> targets;
    std::stringstream items(row);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item.find_first_not_of(' ') == std::string::npos) continue;
      const auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      targets.push_back(
          static_cast<int>(parse_whole(item.substr(b, e - b + 1), 0, 1 << 20, expected)));
    }
    rows.push_back(std::move(targets));
  }
  return rows;
}

std::string format_adjacency(const std::vector<std::vector<int>>& rows) {
  std::string s;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i) s += ';';
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      s += (j ? "," : "") + std::to_string(rows[i][j]);
  }
  return s;
}

}  // namespace

const OptionTable<IslandOptions>& island_option_table() {
  using S = IslandOptions;
  static const OptionTable<IslandOptions> t = [] {
    OptionTable<IslandOptions> v = {
        enum_option<S>(
            "topology", [](S & o) -> auto& { return o.topology.kind; },
            std::vector<TopologyKind>{TopologyKind::ring, TopologyKind::ring_bi,
                                      TopologyKind::torus, TopologyKind::full,
                                      TopologyKind::random_regular, TopologyKind::custom},
            parse_topology, [](TopologyKind k) { return to_string(k); },
            "islands: migration topology"),
        whole_option<S>(
            "degree", [](S & o) -> auto& { return o.topology.degree; }, 1, 1 << 20,
            "islands: out-degree of the random topology"),
        Option<S>{
            "adjacency", "adjacency",
            "islands: custom topology, out-neighbours of each island (e.g. 1,2;0;0)",
            "rows of island indices", OptionKind::rows,
            [](S& o, const std::string& text) { o.topology.adjacency = parse_adjacency(text); },
            [](const S& o) { return format_adjacency(o.topology.adjacency); }},
        // "--interval" alone would not say of what.
        with_flag(whole_option<S>(
                      "interval", [](S & o) -> auto& { return o.interval; }, 1, 1000000,
                      "islands: generations per epoch (between migrations)"),
                  "migration-interval"),
        whole_option<S>(
            "migrants", [](S & o) -> auto& { return o.migrants; }, 0, 1000000,
            "islands: emigrants per island per epoch"),
        enum_option<S>(
            "emigrants", [](S & o) -> auto& { return o.emigrants; },
            std::vector<EmigrantPolicy>{EmigrantPolicy::best, EmigrantPolicy::random,
                                        EmigrantPolicy::tournament},
            parse_emigrant_policy, [](EmigrantPolicy p) { return to_string(p); },
            "islands: which individuals emigrate"),
        enum_option<S>(
            "replace", [](S & o) -> auto& { return o.replace; },
            std::vector<ReplacePolicy>{ReplacePolicy::worst, ReplacePolicy::random_non_best,
                                       ReplacePolicy::fair},
            parse_replace_policy, [](ReplacePolicy p) { return to_string(p); },
            "islands: which residents immigrants replace"),
        enum_option<S>(
            "mode", [](S & o) -> auto& { return o.mode; },
            std::vector<MigrationMode>{MigrationMode::sync, MigrationMode::async},
            parse_migration_mode, [](MigrationMode m) { return to_string(m); },
            "islands: sync (reproducible) or async (never waits)"),
        whole_option<S>(
            "ranks_per_island", [](S & o) -> auto& { return o.ranks_per_island; }, 0, 1 << 20,
            "islands: ranks sharing one population, each with a row slice "
            "(0, auto: all ranks when the search has <= 3 dimensions, else 1)"),
        bool_option<S>(
            "share_population", [](S & o) -> auto& { return o.share_population; },
            "islands: with de.population auto, N islands share it (each max(20, auto/N)); "
            "--no-share-population: each island the full auto population"),
        as_test_hook(index_option<S>(
            "slow_island", [](S & o) -> auto& { return o.slow_island; }, 1 << 20,
            "islands, fault injection: this island sleeps slow_ms per generation")),
        as_test_hook(real_option<S>(
            "slow_ms", [](S & o) -> auto& { return o.slow_ms; }, 0.0, 1e6,
            "islands, fault injection: sleep per generation of slow_island")),
    };
    return v;
  }();
  return t;
}

void IslandOptions::validate(int world_size) const {
  if (ranks_per_island < 0) {
    throw ConfigError("islands.ranks_per_island must be >= 0 (0: auto), got " +
                      std::to_string(ranks_per_island));
  }
  if (ranks_per_island > 0 && world_size % ranks_per_island != 0) {
    throw ConfigError("the job has " + std::to_string(world_size) +
                      " ranks, which do not split into "
                      "islands of ranks_per_island=" +
                      std::to_string(ranks_per_island) +
                      "; use a rank count that is a multiple of it");
  }
  if (interval == 0) throw ConfigError("islands.interval (generations per epoch) must be >= 1");
  if (slow_ms < 0) throw ConfigError("islands.slow_ms must be >= 0");
  make_topology(topology, world_size / std::max(ranks_per_island, 1), 0,
                0);  // throws on a bad topology
}

int resolve_ranks_per_island(const IslandOptions& o, int world_size, std::size_t search_dims) {
  if (o.ranks_per_island > 0) return o.ranks_per_island;
  return search_dims <= IslandOptions::kShardedSearchDims ? std::max(world_size, 1) : 1;
}

std::size_t population_per_island(const de::DeOptions& de, const IslandOptions& o, int n_islands,
                                  std::size_t dim) {
  const std::size_t whole = de.population_for(dim);
  if (!o.share_population || de.population > 0 || n_islands < 2) return whole;
  const std::size_t n = static_cast<std::size_t>(n_islands);
  return std::max(IslandOptions::kMinSharedPopulation, (whole + n - 1) / n);
}

}  // namespace perfit::island
