// Extra-P's JSON inputs (extra-p/extrap 4.2.5, docs/file-formats.md), read into the same sets as
// its text format (io/extrap_reader.hpp: one table per callpath x metric, a column per
// parameter and the measured value in `value`, one row per repetition):
//   JSON, current:  {"parameters": ["p", ...], "measurements": {CALLPATH: {METRIC:
//                    [{"point": [2, ...], "values": [1.2, ...]}, ...]}}}
//   JSON, older:    {"parameters": [{"id", "name"}], "callpaths": [{"id", "name"}], "metrics":
//                    [{"id", "name"}], "coordinates": [{"id", "parameter_value_pairs":
//                    [{"parameter_id", "parameter_value"}]}], "measurements": [{"callpath_id",
//                    "coordinate_id", "metric_id", "value"}]}
//   JSON Lines:     one object per line, {"params": {"p": 2, ...}, "value": 1.2 | [1.2, ...],
//                    "callpath": "...", "metric": "..."} (callpath and metric optional)
// Sets keep the order in which their callpath x metric first appears in the file.
#pragma once

#include <string>
#include <vector>

#include "perfit/io/extrap_reader.hpp"

namespace perfit::io {

// Either JSON format, told apart by what "parameters" holds (names or {"id", "name"} objects).
// Throws: IoError if unreadable; DataError "'F': not JSON (...)" or "'F' <where>: found ...,
// expected ..." naming the JSON path of the bad item (e.g.
// measurements["main"]["time"][3].values[1] or measurements[7].coordinate_id), or a file without
// measurements.
std::vector<ExtrapSet> read_extrap_json(const std::string& path);

// Throws: IoError if unreadable; DataError "'F' line N: ..." for a line that is not JSON (a
// truncated record), a missing or non-numeric value, or parameters that differ from line 1's.
std::vector<ExtrapSet> read_extrap_jsonl(const std::string& path);

// By the file's extension: .json and .jsonl as above, anything else Extra-P's text format, each
// set handed to `each` in the file's order. The text format streams (one set in memory); a JSON
// document is parsed whole, and JSON Lines may add to any set on any line, so those two are
// read whole first.
void for_each_extrap_set(const std::string& path, const std::function<void(ExtrapSet&&)>& each);

}  // namespace perfit::io
