// `perfit select --set GLOB`: the selection of every set the glob matches, in one process per
// rank (Extra-P's daily job: a model per call path x metric). The sets are dealt out to the
// ranks in turn; each rank selects its own serially and rank 0 gathers one summary row per set.
#pragma once

#include <string>

#include "select_core.hpp"

namespace perfit::app {

// A set path with glob characters (* ? [), as batch manifests take them.
bool is_set_glob(const std::string& set);

// Prints one row per set (or --json), or with --out DIR writes DIR/selection.csv and
// DIR/selection.json. A set whose selection fails is a row with status error and its message;
// the rest go on. Throws: ConfigError for a glob that matches nothing or an output it may not
// write; DataError when every set failed (the first set's message).
int run_select_many(const SelectArgs& a, const fit::RunConfig& cfg);

}  // namespace perfit::app
