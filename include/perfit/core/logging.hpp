// Rank-aware logging: rank 0 tells the story, other ranks only warn (unless all_ranks).
// Headers elsewhere do not include spdlog; they call these or log from .cpp files.
#pragma once

#include <string>

namespace perfit {

enum class LogLevel { trace, debug, info, warn, error, off };

// Throws: ConfigError for an unknown level name.
LogLevel parse_log_level(const std::string& name);

void init_logging(int rank, LogLevel level, bool all_ranks = false);

}  // namespace perfit
