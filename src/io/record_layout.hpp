// Private to io/: the layout of a winner's record (io/winner_record.hpp), shared by its
// encoder and decoder (winner_record.cpp) and by what reads and replaces its run configuration
// (record_config.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/result_file.hpp"

namespace perfit::io::detail {

// "perfit" + record layout 3: the result's fields without their names (result_fields_by_key's
// order; layout 1 named each, ~1.2 KB of a winner's ~3.4 KB, sent, journaled and read back),
// the run configuration as its text or as the number of one carried before it (RecordConfig).
// Layout 2, the text always, is read too: a journal an earlier perfit left.
inline constexpr std::uint64_t kRecordVersion = 0x7065726669740103ULL;
inline constexpr std::uint64_t kRecordVersionTextConfig = 0x7065726669740102ULL;
inline constexpr const char* kWhat = "a winner's record";
inline constexpr std::string_view kConfigKey = "config_yaml";

// The record's fields, in order: the result's (their names and count are this perfit's).
inline const std::vector<std::pair<std::string, const ResultField*>>& open_record(
    data::WireReader& in) {
  if (const std::uint64_t v = in.count(); v != kRecordVersion && v != kRecordVersionTextConfig)
    throw DataError("a winner's record is not one this perfit writes (layout version)");
  const auto& keys = detail::result_fields_by_key();
  if (in.count() != keys.size()) throw DataError("a winner's record is malformed (fields)");
  return keys;
}

}  // namespace perfit::io::detail
