// Packed sets: many small sets of one column layout in shared tables under /@packs/<n>
// (docs/hdf5-format.md "Packed sets"). StoreWriter::write_sets packs, StoreReader reads them
// by set name like any other set.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/h5_handle.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::io::detail {

using NamedTable = std::pair<std::string, const data::MeasurementTable*>;

// Sets of equal signature (column names and types, attribute names and kinds) share a pack.
std::string pack_signature(const data::MeasurementTable& t);

// Writes `sets` (one signature) as the pack group `path`, sorted by set path; each set's
// `checksum` attribute is computed from its rows, as for a set written alone.
void write_pack(hid_t file, const std::string& path, std::vector<NamedTable> sets, const std::string& where);

// One pack, open: its index in memory (set paths, first row, rows), its datasets open so
// that reading sets in order decompresses each chunk once.
class Pack {
 public:
  // Throws: DataError for a pack of another version or an inconsistent index.
  Pack(hid_t file, std::string path, std::string where);

  const std::string& path() const { return path_; }
  const std::vector<std::string>& sets() const { return names_; }  // sorted
  std::optional<std::size_t> find(const std::string& set) const;
  std::size_t rows(std::size_t i) const { return static_cast<std::size_t>(rows_[i]); }
  SetInfo info(std::size_t i) const;
  std::optional<data::AttributeValue> attribute(std::size_t i, const std::string& name) const;
  data::MeasurementTable read(std::size_t i, const std::vector<ColumnInfo>& wanted, std::size_t begin,
                              std::size_t end) const;

 private:
  struct Varying {
    ColumnInfo info;
    H5Dataset dataset;
  };
  void check_index(std::size_t total_rows) const;

  std::string path_;
  std::string where_;
  H5Group group_;
  std::vector<std::string> names_;
  std::vector<std::int64_t> first_;
  std::vector<std::int64_t> rows_;
  data::Attributes shared_;
  std::vector<Varying> varying_;
  std::vector<ColumnInfo> columns_;
  std::vector<H5Dataset> column_sets_;
};

// Every pack of a file (none when it has no /@packs).
class PackedSets {
 public:
  PackedSets(hid_t file, const std::string& file_name);
  bool empty() const { return packs_.empty(); }
  const std::vector<Pack>& packs() const { return packs_; }
  struct Hit {
    const Pack* pack;
    std::size_t index;
  };
  std::optional<Hit> find(const std::string& set) const;

 private:
  std::vector<Pack> packs_;
};

}  // namespace perfit::io::detail
