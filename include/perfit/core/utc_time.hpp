// The current time as ISO 8601 UTC ("2026-12-01T09:30:00Z"), for provenance in output files.
#pragma once

#include <ctime>
#include <string>

namespace perfit {

inline std::string utc_now() {
  // Formatted once a second per thread: a selection over 10^4 sets stamps every winner, and
  // strftime with its time-zone lookup was ~1% of that run.
  thread_local std::time_t last = -1;
  thread_local std::string text;
  const std::time_t t = std::time(nullptr);
  if (t == last) return text;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  last = t;
  text = buf;
  return text;
}

}  // namespace perfit
