// Fit configs as YAML (configs/fit.yaml documents every key with its default).
#pragma once

#include <string>

#include "perfit/de/fit_config.hpp"
#include "perfit/island/island_options.hpp"

namespace perfit::io {

// Applies the keys of a YAML file on top of cfg (so defaults stay where keys are absent).
// Throws: IoError if unreadable; ConfigError naming the file and the unknown or bad key.
// The `islands:` section goes to *islands when given (an error when it is null).
void load_fit_config(const std::string& path, de::FitConfig& cfg,
                     island::IslandOptions* islands = nullptr);
void apply_fit_config_yaml(const std::string& text, const std::string& origin, de::FitConfig& cfg,
                           island::IslandOptions* islands = nullptr);

// The config as run, as YAML (stored in result files).
std::string fit_config_to_yaml(const de::FitConfig& cfg,
                               const island::IslandOptions* islands = nullptr);

}  // namespace perfit::io
