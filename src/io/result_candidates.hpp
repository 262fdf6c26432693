// A result's /candidates group (docs/hdf5-format.md): the ranked candidates of a selection,
// each constant kept at full precision.
#pragma once

#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/result_file.hpp"

namespace perfit::io::detail {

// One row per candidate; the constants as "v0;v1;..." (full precision), in the model's order.
data::MeasurementTable candidates_table(const std::vector<CandidateFit>& cands);
// Throws: DataError naming path and the column for a damaged group.
std::vector<CandidateFit> candidates_from_table(const data::MeasurementTable& t,
                                                const std::string& path);

}  // namespace perfit::io::detail
