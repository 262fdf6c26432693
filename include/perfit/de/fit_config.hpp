// Everything one `perfit fit` run needs, as plain values. Filled from configs/fit.yaml-style
// files by io/fit_config.cpp (the only place that sees yaml-cpp) and overridden by flags.
#pragma once

#include <cstdint>
#include <string>

#include "perfit/de/model_fit.hpp"
#include "perfit/model/cost.hpp"

namespace perfit::de {

struct FitConfig {
  std::string data;               // HDF5 store
  std::string set;                // /<framework>/<model>[/<system>]
  std::string model = "generic";  // built-in name or YAML file
  std::string out;                // result file (HDF5)
  unsigned threads = 1;           // evaluator threads per process
  model::CostOptions cost;
  FitOptions fit;                 // DE options (seed in fit.de.seed), polish, progress

  // Throws: ConfigError naming the missing or bad key.
  void validate() const;
};

}  // namespace perfit::de
