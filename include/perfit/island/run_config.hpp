// Everything one `perfit fit` run is given: the fit's options and the island model's. The
// option table here is the one definition that the CLI flags, the YAML config, --help, the
// JSON "config" field and the config saved in result files are all derived from.
#pragma once

#include <string>

#include "perfit/core/option_table.hpp"
#include "perfit/de/fit_config.hpp"
#include "perfit/island/island_options.hpp"

namespace perfit::island {

struct RunConfig {
  de::FitConfig fit;
  IslandOptions islands;
  // Heterogeneous islands as text, "strategy=jso,F=0.6;strategy=lshade": island i applies
  // entry i % n on top of the final base `de` options (so key order does not matter).
  std::string per_island;

  // Fills islands.per_island from per_island and fit.fit.de, then validates the fit options.
  // Throws: ConfigError naming the key.
  void resolve();
};

const OptionTable<RunConfig>& run_config_option_table();

// The DE options of each per_island entry, applied on top of base.
// Throws: ConfigError "islands.per_island entry N: ..." naming the bad key.
std::vector<de::DeOptions> parse_per_island(const std::string& text, const de::DeOptions& base);

}  // namespace perfit::island
