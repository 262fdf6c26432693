// Shared by the fuzz targets: inputs that readers take as files are written to a private
// temporary directory (one per process, removed at exit), and only perfit's typed errors are
// an acceptable way to refuse an input. Anything else escaping (std::out_of_range, a YAML or
// JSON library exception, bad_alloc from a size read off the input) is a finding: libFuzzer
// reports it as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfit::fuzz {

// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Writes the input to NAME in this process's temporary directory; returns the path.
std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size);

// The store at path as `perfit inspect` and `perfit fit` read it: every set listed, described
// and loaded. perfit's typed errors refuse it (or one set); anything else escapes: a finding.
void read_every_set(const std::string& path);

}  // namespace perfit::fuzz
