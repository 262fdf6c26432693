// A fingerprint of a measurement set: FNV-1a 64 over each column's name, type and values,
// then over the columns' hashes in order. Computed while a set is written (import, synth) and
// stored as its `checksum` attribute, so a result or checkpoint names the data it came from
// whatever rows or columns a fit loads. Not cryptographic; it tells "same data" from "changed".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

// Fed the rows of each column in order, possibly in chunks.
class SetChecksum {
 public:
  explicit SetChecksum(std::size_t columns) : column_hash_(columns, kOffset) {}
  void add(std::size_t column, const Column& chunk);
  // "fnv1a64:<16 hex digits>"; names and types of the columns in order.
  std::string finish(const std::vector<std::string>& names,
                     const std::vector<ColumnType>& types) const;

 private:
  static constexpr std::uint64_t kOffset = 0xcbf29ce484222325ULL;
  std::vector<std::uint64_t> column_hash_;
};

std::string table_checksum(const MeasurementTable& t);  // of a whole table, the same value

}  // namespace perfit::data
