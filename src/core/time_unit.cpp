#include "perfit/core/time_unit.hpp"

#include <array>
#include <limits>
#include <utility>

#include "perfit/core/error.hpp"

namespace perfit {

namespace {

// The short spelling first: it is the one messages name.
constexpr std::array<std::pair<const char*, double>, 17> kUnits{{
    {"s", 1.0},
    {"sec", 1.0},
    {"seconds", 1.0},
    {"second", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"ns", 1e-9},
    {"min", 60.0},
    {"minutes", 60.0},
    {"minute", 60.0},
    {"h", 3600.0},
    {"hour", 3600.0},
    {"hours", 3600.0},
    {"hr", 3600.0},
    {"d", 86400.0},
    {"day", 86400.0},
    {"days", 86400.0},
}};

}  // namespace

std::string known_time_units() { return "s, ms, us, ns, min, h, d"; }

double seconds_per_unit(const std::string& unit) {
  for (const auto& [name, seconds] : kUnits) {
    if (unit == name) return seconds;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

void check_time_unit(const std::string& unit, const std::string& where) {
  if (seconds_per_unit(unit) == seconds_per_unit(unit)) return;
  throw ConfigError(where + " '" + unit + "', which is not a time unit; expected one of " +
                    known_time_units() + " (import --unit)");
}

}  // namespace perfit
