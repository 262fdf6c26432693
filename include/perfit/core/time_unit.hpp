// The unit a store keeps its measured times in (`import --unit`), and what one of it is in
// seconds: every number derived from the target (gpu-hours) converts through it.
#pragma once

#include <string>

namespace perfit {

// "s, ms, us, ns, min, h, d": the units perfit converts (and their long spellings).
std::string known_time_units();

// Seconds in one `unit` ("min" -> 60); NaN for a unit perfit does not know.
double seconds_per_unit(const std::string& unit);

// Throws: ConfigError "<where> 'furlong', which is not a time unit; expected one of s, ms, ...".
void check_time_unit(const std::string& unit, const std::string& where);

}  // namespace perfit
