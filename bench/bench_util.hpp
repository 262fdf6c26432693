// Small helpers for perfit's benchmarks: wall time and this process's memory (Linux /proc).
#pragma once

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace perfit::bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A field of /proc/self/status in bytes (VmRSS, VmHWM), 0 if unavailable.
inline double proc_status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) * 1024.0;
  }
  return 0.0;
}

// Resets the peak RSS (VmHWM) to the current RSS, so a later peak belongs to what ran since.
inline bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out);
}

}  // namespace perfit::bench
