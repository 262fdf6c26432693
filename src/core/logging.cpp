#include "perfit/core/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "perfit/core/error.hpp"

namespace perfit {

LogLevel parse_log_level(const std::string& name) {
  if (name == "trace") return LogLevel::trace;
  if (name == "debug") return LogLevel::debug;
  if (name == "info") return LogLevel::info;
  if (name == "warn" || name == "warning") return LogLevel::warn;
  if (name == "error") return LogLevel::error;
  if (name == "off") return LogLevel::off;
  throw ConfigError("log level '" + name + "' is not one of trace, debug, info, warn, error, off");
}

void init_logging(int rank, LogLevel level, bool all_ranks) {
  const std::string name = "r" + std::to_string(rank);
  spdlog::drop(name);
  // Plain (uncoloured) stderr sink: under mpirun stderr is a pty and colour codes would land
  // in Slurm output files.
  auto log = spdlog::stderr_logger_mt(name);
  log->set_pattern("%H:%M:%S.%e [%n] %l %v");
  auto lvl = static_cast<spdlog::level::level_enum>(static_cast<int>(level));
  if (rank != 0 && !all_ranks) lvl = std::max(lvl, spdlog::level::warn);
  log->set_level(lvl);
  spdlog::set_default_logger(log);
}

}  // namespace perfit
