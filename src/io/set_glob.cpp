#include "perfit/io/set_glob.hpp"

#include <fnmatch.h>

#include "perfit/core/error.hpp"

namespace perfit::io {

bool is_set_glob(const std::string& set) { return set.find_first_of("*?[") != std::string::npos; }

bool set_matches(const std::string& glob, const std::string& set) {
  return ::fnmatch(glob.c_str(), set.c_str(), FNM_PATHNAME) == 0;
}

std::vector<std::string> matching_sets(const StoreReader& store, const std::string& glob) {
  std::vector<std::string> out;
  const std::vector<std::string> all = store.sets();
  for (const auto& set : all) {
    if (set_matches(glob, set)) out.push_back(set);
  }
  if (out.empty()) {
    throw ConfigError("--set '" + glob + "': matches none of the " + std::to_string(all.size()) +
                      " set(s) of '" + store.path() + "' (e.g. " +
                      (all.empty() ? std::string("none") : all.front()) + ")");
  }
  return out;
}

}  // namespace perfit::io
