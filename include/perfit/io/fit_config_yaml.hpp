// Run configs as YAML (configs/fit.yaml documents every key with its default). Keys, checks
// and the saved form all come from island::run_config_option_table(); this file only maps
// YAML nesting to dotted keys and back.
#pragma once

#include <string>

#include "perfit/island/run_config.hpp"

namespace perfit::io {

// Applies the keys of a YAML file on top of cfg (so defaults stay where keys are absent).
// Throws: IoError if unreadable; ConfigError naming the file and the unknown or bad key.
void load_run_config(const std::string& path, island::RunConfig& cfg);
void apply_run_config_yaml(const std::string& text, const std::string& origin,
                           island::RunConfig& cfg);

// The config as run, as YAML that load_run_config reads back to the same values (stored in
// result files; full precision, per-island options and custom adjacency included).
std::string run_config_to_yaml(const island::RunConfig& cfg);

// The same values as a JSON object (nested by section), for --json outputs.
std::string run_config_to_json(const island::RunConfig& cfg);

}  // namespace perfit::io
