// `perfit synth`: writes the synthetic sets (data/synth.hpp) to a new store, chunk by chunk,
// so memory stays bounded whatever --rows is.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/synth.hpp"

namespace perfit::io {

struct SynthStoreSummary {
  std::vector<std::string> sets;
  std::size_t rows = 0;  // over all sets
};

// only: set paths to write (all catalogue sets when empty).
// Throws: ConfigError for an unknown set in `only`; IoError/H5Error when writing fails.
SynthStoreSummary write_synthetic_store(const std::string& path, const data::SynthOptions& options,
                                        const std::vector<std::string>& only = {});

}  // namespace perfit::io
