// A fingerprint of the data a fit used (recorded in result files): FNV-1a 64 over column names,
// types and values, in column order. Not cryptographic; it tells "same data" from "changed".
#pragma once

#include <string>

#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

std::string table_checksum(const MeasurementTable& t);  // "fnv1a64:<16 hex digits>"

}  // namespace perfit::data
