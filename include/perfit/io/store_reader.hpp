// Reads measurement sets from a perfit HDF5 store: lists sets, describes them, and loads
// chosen columns of a row range (a hyperslab), so a rank can load just its slice of a large set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/file_identity.hpp"
#include "perfit/io/h5_id.hpp"

namespace perfit::io {

namespace detail {
class PackedSets;
class CheckedDatasets;
}  // namespace detail

struct ColumnInfo {
  std::string name;
  data::ColumnType type = data::ColumnType::float64;
};

struct SetInfo {
  std::string path;
  std::size_t rows = 0;
  std::vector<ColumnInfo> columns;
  data::Attributes attributes;
};

// Rows [begin, end); end is clamped to the set's length.
struct RowRange {
  std::size_t begin = 0;
  std::size_t end = std::numeric_limits<std::size_t>::max();
};

// While one is alive, StoreReader::info reads each set's description (attributes, columns,
// rows) once per file, as long as the file's identity (device, inode, size, modification
// time) is unchanged, and open_store shares one reader per file: a selection over 10^4 sets asks
// for each set's description 4 times (its columns, its rows for the candidates, then the winner's
// fit). For runs whose stores are inputs only; at most 4,096 descriptions are kept. Not copyable;
// nests.
class SetInfoMemo {
 public:
  SetInfoMemo();
  ~SetInfoMemo();
  SetInfoMemo(const SetInfoMemo&) = delete;
  SetInfoMemo& operator=(const SetInfoMemo&) = delete;
};

class StoreReader {
 public:
  // Throws: IoError if the file is missing or unreadable; DataError if it is not HDF5.
  explicit StoreReader(std::string path);

  const std::string& path() const { return path_; }
  std::int64_t id() const { return file_.get(); }  // the file's hid_t, for io's own .cpp files

  // Paths of all sets, sorted. Throws: DataError if the file holds no perfit set.
  std::vector<std::string> sets() const;
  // A group directly under the root ("/ranges"), set or not: optional parts of result files.
  bool has_group(const std::string& name) const;
  bool has_set(const std::string& set) const;

  // Throws: DataError if the set is missing (listing the sets there are) or malformed.
  SetInfo info(const std::string& set) const;
  // The set's row count; for a packed set without reading anything (inspect over 10^5 sets).
  std::size_t rows(const std::string& set) const;
  // The packs of the file (docs/hdf5-format.md "Packed sets"): each pack's group and sets.
  struct Pack {
    std::string path;
    std::vector<std::string> sets;
  };
  std::vector<Pack> packs() const;
  // One attribute of a set as text ("" when it has none), without describing the set (a plan
  // that needs the checksums of 10^5 sets). Throws: DataError if the set is missing.
  std::string set_attribute(const std::string& set, const std::string& name) const;
  // The same for each of `sets`, in their order: a packed store's attribute read once for all
  // (one call per set was 0.6 s of the start of a selection over 10^6 sets).
  std::vector<std::string> set_attributes(const std::vector<std::string>& sets,
                                          const std::string& name) const;

  // Loads `columns` (all when empty), in the order asked, for rows in `range`; as_double:
  // integer columns as float64, converted by HDF5 as it reads (a streamed fit's chunk then
  // needs no copy). Throws: DataError for a missing set or column, or a range beyond the set.
  data::MeasurementTable read(const std::string& set, const std::vector<std::string>& columns = {},
                              RowRange range = {}, bool as_double = false) const;

  // Any group of 1-D datasets (not necessarily a set): all columns and attributes.
  // Throws: DataError if the group is missing or holds something else.
  data::MeasurementTable read_group(const std::string& path) const;
  // Rows `range` of such a group (end clamped to its length). Throws: as read_group, and
  // DataError for a range that starts beyond the group.
  data::MeasurementTable read_group(const std::string& path, RowRange range) const;
  // Attributes of the root group.
  data::Attributes root_attributes() const;

 private:
  SetInfo describe(const std::string& path) const;
  SetInfo info_uncached(const std::string& set) const;
  data::MeasurementTable load(const SetInfo& si, const std::vector<ColumnInfo>& wanted,
                              std::size_t begin, std::size_t end) const;
  std::vector<std::string> find_sets() const;
  std::string where(const std::string& set) const;

  std::string path_;
  H5Id file_;
  std::shared_ptr<const detail::PackedSets> packs_;  // read at open: the index of every pack
  // Datasets found to hold the rows they declare (a check that walks every chunk: once each,
  // not for every chunk of a streamed read).
  std::shared_ptr<detail::CheckedDatasets> checked_;
  // The file as opened (device, inode, size, mtime): what a described set is memoized under,
  // so that asking this reader again costs no stat. Empty when stat failed.
  std::optional<FileIdentity> identity_;
};

// The reader of the store at path: while a SetInfoMemo is alive, one per file (same identity)
// shared by every caller (a selection opens the store three times per set); else a new one.
// Throws: as StoreReader.
std::shared_ptr<const StoreReader> open_store(const std::string& path);

// The description of one set of the store at path: from the SetInfoMemo when one is alive and
// holds it, without opening the file (a selection asks for each set's columns a few times);
// else StoreReader(path).info(set). Throws: as StoreReader and its info.
SetInfo describe_set(const std::string& path, const std::string& set);

}  // namespace perfit::io
