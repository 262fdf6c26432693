// Extra-P's text input format (extra-p/extrap, fileio/text_file_reader.py), so an Extra-P user
// brings the files they have:
//   PARAMETER p            (one or more names per line, up to 4 in all)
//   POINTS 2 4 8 16        (one parameter)   POINTS ( 2 10 ) ( 4 10 )   (several)
//   REGION main            (optional; starts a new set)
//   METRIC time            (optional; starts a new set)
//   DATA 1.2 1.3 1.1       (the repetitions at the next point, in POINTS order)
// '#' starts a comment line. Each region x metric becomes one table: a column per parameter
// and the measured value in `value`, one row per repetition.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::io {

struct ExtrapSet {
  std::string region, metric;  // "" when the file has no REGION / METRIC line
  data::MeasurementTable table;
};

inline constexpr const char* kExtrapValueColumn = "value";

// Calls `each` with every set as soon as a REGION or METRIC line or the end of the file closes
// it, so that memory holds one set whatever the file's size (10^6 call paths: 300 MB of text).
// Throws: IoError if unreadable; DataError "'F' line N: ..." for an unknown field, a value that
// is not a number, POINTS of the wrong arity, more DATA lines than POINTS, no parameter, more
// than 4 parameters, or a file without data (sets before a bad line have been handed over).
void for_each_extrap_text_set(const std::string& path,
                              const std::function<void(ExtrapSet&&)>& each);

// Every set at once (the same checks).
std::vector<ExtrapSet> read_extrap_text(const std::string& path);

}  // namespace perfit::io
