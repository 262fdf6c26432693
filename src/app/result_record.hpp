// A result as JSON text, for passing a winner between ranks (a selection over many sets: each
// rank selects its sets, rank 0 keeps every winner in the selection store). Lossless: NaN and
// whole numbers keep their types, doubles their 17 digits.
#pragma once

#include <nlohmann/json.hpp>

#include "perfit/io/result_file.hpp"

namespace perfit::app {

nlohmann::json result_record(const io::ResultFile& r);
// Throws: DataError for a record result_record did not write.
io::ResultFile result_from_record(const nlohmann::json& j);

}  // namespace perfit::app
