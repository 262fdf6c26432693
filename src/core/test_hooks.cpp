#include "perfit/core/test_hooks.hpp"

#include <cstdlib>
#include <string>

#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"

namespace perfit {

double test_hook(std::string_view name) {
  const char* env = std::getenv("PERFIT_TEST_HOOKS");
  if (!env) return 0.0;
  const std::string text(env);
  double value = 0.0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    const std::size_t eq = entry.find('=');
    const std::string key = entry.substr(0, eq);
    const bool known = key == kCheckpointDelayMs || key == kSelectChunkDelayMs ||
                       key == kSelectionFlushMs || key == kImportChunkRows ||
                       key == kImportBlockSets;
    if (eq == std::string::npos || !known) {
      throw ConfigError("PERFIT_TEST_HOOKS: found '" + entry +
                        "', expected NAME=VALUE with NAME one of " +
                        std::string(kCheckpointDelayMs) + ", " + std::string(kSelectChunkDelayMs) +
                        ", " + std::string(kSelectionFlushMs) + ", " +
                        std::string(kImportChunkRows) + ", " + std::string(kImportBlockSets));
    }
    try {
      const double v = parse_real(entry.substr(eq + 1), 0.0, 1e7, "a number in [0, 1e7]");
      if (key == name) value = v;
    } catch (const ConfigError& e) {
      throw ConfigError("PERFIT_TEST_HOOKS: " + key + ": " + e.what());
    }
  }
  return value;
}

}  // namespace perfit
