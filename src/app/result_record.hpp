// A result as bytes (data/wire.hpp), for passing a winner between ranks (a selection over many
// sets: each rank selects its sets, rank 0 keeps every winner in the selection store).
// Lossless: every double travels as its bits, attributes keep their types.
#pragma once

#include <map>
#include <string>

#include "perfit/io/result_file.hpp"
#include "perfit/io/selection_store.hpp"

namespace perfit::app {

std::string result_record(const io::ResultFile& r);
// Throws (both): DataError for bytes result_record did not write.
io::ResultFile result_from_record(const std::string& bytes);
// The record as the selection store keeps it, without building the result.
io::WinnerParts record_parts(const std::string& bytes);
// widths[field] at least as wide as the record's text of that field (the store's text columns
// are as wide as their longest value: kept as winners arrive, the store is written in one pass).
void widen_to_record(const std::string& bytes, std::map<std::string, std::size_t>& widths);

}  // namespace perfit::app
