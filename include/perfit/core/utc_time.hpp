// The current time as ISO 8601 UTC ("2026-12-01T09:30:00Z"), for provenance in output files.
#pragma once

#include <ctime>
#include <string>

namespace perfit {

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace perfit
