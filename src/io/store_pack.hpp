// Packed sets: many small sets of one column layout in shared tables under /@packs/<n>
// (docs/hdf5-format.md "Packed sets"). StoreWriter::write_sets packs, StoreReader reads them
// by set name like any other set.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "h5_handle.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::io::detail {

using NamedTable = std::pair<std::string, const data::MeasurementTable*>;

// A pack's groups (docs/hdf5-format.md "Packed sets").
inline constexpr const char* kPackIndex = "index";
inline constexpr const char* kPackAttributes = "attributes";
inline constexpr const char* kPackColumns = "columns";

// Sets of equal signature (column names and types, attribute names and kinds) share a pack.
std::string pack_signature(const data::MeasurementTable& t);

// Writes `sets` (one signature) as the pack group `path`, sorted by set path; each set's
// `checksum` attribute is computed from its rows, as for a set written alone.
void write_pack(hid_t file, const std::string& path, std::vector<NamedTable> sets,
                const std::string& where);

// What a pack's index says: read once per file and shared by every reader of it (a selection
// opens the store a few times per set; each open reading 10^5 paths cost 0.1 s).
struct PackIndex {
  std::string path;                // /@packs/<n>
  std::vector<std::string> names;  // sorted
  std::vector<std::int64_t> first;
  std::vector<std::int64_t> rows;
  data::Attributes shared;          // with perfit_format, as a set's
  std::vector<ColumnInfo> varying;  // attributes/ datasets
  std::vector<ColumnInfo> columns;  // columns/ datasets
  std::size_t total_rows = 0;       // of each columns/ dataset
  // Blocks of kPackChunkRows entries of those datasets, decoded once per process and shared
  // by every open of the store (a selection opens it a few times per set: inflating the same
  // chunks at each open was a fifth of its time). One cache for every pack of a file, bounded:
  // cleared past 64 MiB.
  struct Blocks;
  std::shared_ptr<Blocks> blocks;
};

// One pack of an open file: its index, and its datasets opened when first read and kept open
// so that sets read in order decompress each chunk once.
class Pack {
 public:
  Pack(hid_t file, std::shared_ptr<const PackIndex> index, std::string where);

  const std::string& path() const { return index_->path; }
  const std::vector<std::string>& sets() const { return index_->names; }  // sorted
  std::optional<std::size_t> find(const std::string& set) const;
  std::size_t rows(std::size_t i) const { return static_cast<std::size_t>(index_->rows[i]); }
  SetInfo info(std::size_t i) const;
  std::optional<data::AttributeValue> attribute(std::size_t i, const std::string& name) const;
  // Attribute `name` of every set, as text in sets() order ("" where absent): the whole column
  // in one read, not a column slice per set.
  std::vector<std::string> attribute_texts(const std::string& name) const;
  // Rows [begin, end) of set i's `wanted` columns (no attributes: info has them).
  data::MeasurementTable read(std::size_t i, const std::vector<ColumnInfo>& wanted,
                              std::size_t begin, std::size_t end) const;

 private:
  hid_t dataset(std::vector<H5Dataset>& open, std::size_t k, const char* group,
                const std::string& name) const;
  // Entries [begin, begin + count) of attributes/ (attribute = true) or columns/ dataset k.
  data::Column slice(bool attribute, std::size_t k, std::size_t begin, std::size_t count) const;

  hid_t file_;
  std::shared_ptr<const PackIndex> index_;
  std::string where_;
  mutable std::vector<H5Dataset> varying_sets_;
  mutable std::vector<H5Dataset> column_sets_;
};

// Every pack of a file (none when it has no /@packs).
class PackedSets {
 public:
  // Throws: DataError for a pack of another version or an inconsistent index.
  PackedSets(hid_t file, const std::string& file_name);
  bool empty() const { return packs_.empty(); }
  const std::vector<Pack>& packs() const { return packs_; }
  struct Hit {
    const Pack* pack;
    std::size_t index;
    std::size_t order;  // its place in names()
  };
  std::optional<Hit> find(const std::string& set) const;
  // The same, for sets asked for in names() order: the one after `last` is tried first.
  std::optional<Hit> find_after(const Hit& last, const std::string& set) const;
  // Every packed set's name, sorted.
  std::vector<std::string> names() const;

  // A file's pack indexes, read once per process (index memo in store_pack.cpp).
  struct Directory;

 private:
  std::vector<Pack> packs_;
  std::shared_ptr<const Directory> directory_;
};

}  // namespace perfit::io::detail
