// The winners' run configurations in a selection store, each distinct one kept once
// (docs/result-format.md "Selection store"). A selection runs every set with one configuration
// but for the set: kept per winner it was 988 of a /winners row's 1,858 bytes, a gigabyte of
// text to copy and deflate at 10^6 sets. /configs holds each distinct text without its set and
// the byte where the set goes (set_at, -1: the text is the whole configuration); a winner's
// configuration is its row's text with its own set put back there, byte for byte the one run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::io {

// Where `set` sits in `config`: its value on the top-level `set: "..."` line (as run
// configurations are written), else its first occurrence, else -1 (not there, or set empty).
std::int64_t set_offset(std::string_view config, std::string_view set);

class WinnerConfigs {
 public:
  struct Entry {
    std::string text;     // the configuration without the set
    std::int64_t set_at;  // where the set goes, -1: nowhere
  };
  WinnerConfigs() = default;
  // Reads /configs' table (columns config_yaml, set_at). Throws: DataError naming `where` for
  // a missing column or a set_at past its text.
  WinnerConfigs(const data::MeasurementTable& table, const std::string& where);

  // The row of `config` run on `set`, added when it is new (rows in the order first seen).
  std::size_t add(std::string_view config, std::string_view set);
  // The row of an entry (of another WinnerConfigs), added when it is new.
  std::size_t add(const Entry& e);
  // Row i's configuration run on `set`. Throws: DataError naming `where` for a row past the end.
  std::string config(std::int64_t i, std::string_view set, const std::string& where) const;

  const std::vector<Entry>& entries() const { return entries_; }
  data::MeasurementTable table() const;  // as /configs holds it

 private:
  std::size_t find_or_add(std::string text, std::int64_t set_at);

  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> rows_;  // text + set_at -> row
  std::size_t last_ = 0;  // the row found last: winners come in runs of one configuration
};

}  // namespace perfit::io
