// Everything one `perfit fit` run needs, as plain values. Filled from configs/fit.yaml-style
// files by io/fit_config.cpp (the only place that sees yaml-cpp) and overridden by flags.
#pragma once

#include <cstdint>
#include <string>

#include "perfit/core/option_table.hpp"
#include "perfit/de/fit_options.hpp"
#include "perfit/model/cost.hpp"
#include "perfit/model/separable.hpp"

namespace perfit::de {

struct FitConfig {
  std::string data;               // HDF5 store
  std::string set;                // /<framework>/<model>[/<system>]
  std::string model = "generic";  // built-in name or YAML file
  std::string out;                // result file (HDF5)
  std::string factors;            // "p=n_accelerators,d=1": model factors bound to columns/values
  std::string scale;              // the column of workers (lambda: auto, select); "": p or p's column
  unsigned threads = 1;           // evaluator threads per process
  bool drop_invalid = false;      // drop rows with NaN/inf in a column the fit reads
  bool compress = true;           // evaluate each distinct configuration once when it pays
  model::SeparableMode separable = model::SeparableMode::automatic;  // variable projection
  std::size_t bootstrap = 0;      // refits on resampled rows for intervals (0: none)
  double ci = 0.95;               // level of the bootstrap intervals
  std::string checkpoint_dir;     // empty: no checkpoints
  std::size_t checkpoint_every = 100;  // generations (rounded up to whole epochs)
  model::CostOptions cost;
  FitOptions fit;                 // DE options (seed in fit.de.seed), polish, progress

  // Throws: ConfigError naming the missing or bad key. need_out false: commands that write no
  // result of this fit (validate) leave out empty.
  void validate(bool need_out = true) const;
};

// Every FitConfig option: top-level keys, then cost.* and de.*.
const OptionTable<FitConfig>& fit_config_option_table();

}  // namespace perfit::de
