// Set paths by pattern: `--set '/*/resnet50'` in select, inspect, a joint fit of several sets
// and a batch manifest's `sets:`.
#pragma once

#include <string>
#include <vector>

#include "perfit/io/store_reader.hpp"

namespace perfit::io {

// A pattern has one of * ? [ (a set path never does: validate_set_path refuses them).
bool is_set_glob(const std::string& set);

// fnmatch(3) with FNM_PATHNAME: '*' and '?' stay within one level of the set path.
bool set_matches(const std::string& glob, const std::string& set);

// The store's sets that match, in store order. Throws: ConfigError when none does, naming the
// pattern, the store and one of its sets.
std::vector<std::string> matching_sets(const StoreReader& store, const std::string& glob);

}  // namespace perfit::io
