// Everything one `perfit fit` run is given, as plain values: what to fit (data, set, model,
// factors), where results go, the cost, the DE search and the island model. Its option table
// is the one definition that the CLI flags, the YAML config, --help, the JSON "config" field and
// the config saved in result files and checkpoints all derive from.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "perfit/core/option_table.hpp"
#include "perfit/de/fit_options.hpp"
#include "perfit/island/island_options.hpp"
#include "perfit/model/cost.hpp"
#include "perfit/model/separable.hpp"

namespace perfit::fit {

struct RunConfig {
  std::string data;               // HDF5 store
  std::string set;                // /<framework>/<model>[/<system>]
  std::string model = "generic";  // built-in name or YAML file
  std::string out;                // result file (HDF5)
  std::string factors;            // "p=n_accelerators,d=1": model factors bound to columns/values
  // A joint fit of groups (job/groups.hpp): the columns whose values split the rows, and which
  // of the model's constants the groups share or have each their own (comma-separated names).
  std::string by, shared, per_group, pooled;
  // How strongly a pooled constant's copies are drawn toward their mean; NaN: auto (chosen on
  // held-out scales, job/pool_strength.hpp).
  double pool_strength = std::numeric_limits<double>::quiet_NaN();
  std::string scale;          // the column of workers (lambda: auto, select); "": p or p's column
  unsigned threads = 1;       // evaluator threads per process (select GLOB: sets per rank)
  bool drop_invalid = false;  // drop rows with NaN/inf in a column the fit reads
  bool compress = true;       // evaluate each distinct configuration once when it pays
  std::size_t stream_rows = std::size_t{1} << 20;  // larger shares: compressed as they are read
  model::SeparableMode separable = model::SeparableMode::automatic;  // variable projection
  std::size_t bootstrap = 0;           // refits on resampled rows for intervals (0: none)
  double ci = 0.95;                    // level of the bootstrap intervals
  bool forward_check = true;           // refit without the largest scales: the extrapolation error
  std::string checkpoint_dir;          // empty: no checkpoints
  std::size_t checkpoint_every = 100;  // generations (rounded up to whole epochs)
  model::CostOptions cost;
  de::DeOptions de;                 // the search (seed in de.seed)
  bool polish = true;               // from the DE best (Newton or Levenberg-Marquardt)
  std::size_t search_rows = 65536;  // large sets: the DE searches on a strided sample (0: all rows)
  std::size_t progress_every = 25;  // generations between progress lines; 0: none
  island::IslandOptions islands;
  // Heterogeneous islands as text, "strategy=jso,F=0.6;strategy=lshade": island i applies
  // entry i % n on top of the final base `de` options (so key order does not matter).
  std::string per_island;

  // What the fit engine takes: the DE options, the polish, the searched rows and progress.
  de::FitOptions search() const { return {de, polish, search_rows, progress_every}; }
  // Throws: ConfigError naming the missing or bad key. need_out false: commands that write no
  // result of this fit (validate) leave out empty.
  void validate(bool need_out = true) const;
  // Fills islands.per_island from per_island and de, then validates. Throws: ConfigError.
  void resolve(bool need_out = true);
};

// Every option: top-level keys, then cost.*, de.*, islands.*.
const OptionTable<RunConfig>& run_config_option_table();

// The DE options of each per_island entry, applied on top of base.
// Throws: ConfigError "islands.per_island entry N: ..." naming the bad key.
std::vector<de::DeOptions> parse_per_island(const std::string& text, const de::DeOptions& base);

// YAML configs (configs/fit.yaml documents every key with its default), through io/'s
// option-file reader and writer. Keys absent from the file keep cfg's values.
// Throws: IoError if unreadable; ConfigError naming the file and the unknown or bad key.
void load_run_config(const std::string& path, RunConfig& cfg);
void apply_run_config_yaml(const std::string& text, const std::string& origin, RunConfig& cfg);
// The config as run, as YAML that load_run_config reads back to the same values (stored in
// result files and checkpoints; full precision, per-island options and custom adjacency).
std::string run_config_to_yaml(const RunConfig& cfg);
// The same values as a JSON object (nested by section), for --json outputs.
std::string run_config_to_json(const RunConfig& cfg);

}  // namespace perfit::fit
