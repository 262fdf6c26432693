// Writes a new perfit store file: sets copied whole from another store, or written from
// tables, chunk by chunk for sets too large to hold in memory. Callers write into an
// AtomicOutput's temporary path so that an existing store is never half-modified.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "perfit/data/checksum.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/io/group_writer.hpp"
#include "perfit/io/h5_id.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::io {

// Throws: ConfigError unless path is /<framework>/<model>[/<system>] with names of
// letters, digits and . _ + -.
void validate_set_path(const std::string& set);

// Streams rows into the column datasets of one set created with a known row count.
class SetWriter {
 public:
  SetWriter(H5Id group, std::vector<ColumnInfo> columns, std::size_t rows, std::string where);
  SetWriter(SetWriter&&) noexcept;
  SetWriter& operator=(SetWriter&&) noexcept;
  ~SetWriter();
  // Writes chunk's rows at [offset, offset + chunk.rows()). Columns matched by name.
  // Throws: DataError for a chunk missing a column or overrunning the set.
  void write(std::size_t offset, const data::MeasurementTable& chunk);
  // After the last chunk (written in row order): stores the set's `checksum` attribute.
  void finish();
  // The group, to add datasets of other kinds (StoreWriter::write_group).
  H5Id release_group() { return std::move(group_); }

 private:
  data::SetChecksum checksum_{0};
  H5Id group_;
  std::vector<ColumnInfo> columns_;
  std::vector<H5Id> datasets_;
  std::size_t rows_;
  std::string where_;
  std::unique_ptr<detail::ChunkMemo> memo_;  // across chunks
};

// Seal::yes leaves the file's first kSealBytes to the checksum that close() writes there
// (io/file_seal.hpp): for result and checkpoint files.
enum class Seal { no, yes };

class StoreWriter {
 public:
  // Creates (truncates) the file. Throws: IoError if it cannot be created.
  explicit StoreWriter(std::string path, Seal seal = Seal::no);

  void copy_set(const StoreReader& src, const std::string& set);
  // Copies a whole pack (StoreReader::packs) as it is.
  void copy_pack(const StoreReader& src, const std::string& pack);
  // Creates the set's group, attributes and empty column datasets of `rows` rows.
  SetWriter create_set(const std::string& set, const std::vector<ColumnInfo>& columns,
                       std::size_t rows, const data::Attributes& attributes);
  // Writes a whole table (its attributes become the set's).
  void write_set(const std::string& set, const data::MeasurementTable& table);
  // Writes many tables: those of one shape (columns, attribute names and kinds) in groups of
  // at least kPackMinSets as packs (docs/hdf5-format.md "Packed sets"), the rest as write_set.
  void write_sets(const std::vector<std::pair<std::string, const data::MeasurementTable*>>& sets);
  // Writes a table as a plain group (not a measurement set): columns as 1-D datasets and
  // the table's attributes. For result files.
  void write_group(const std::string& path, const data::MeasurementTable& table);
  // The same group written block by block (io/group_writer.hpp): `rows` rows of `columns`.
  GroupWriter stream_group(const std::string& path, const std::vector<GroupColumn>& columns,
                           std::size_t rows, const data::Attributes& attributes = {});
  // Scalar attribute on the file's root group.
  void write_root_attribute(const std::string& name, const data::AttributeValue& v);
  // Flushes, closes and (Seal::yes) seals. Throws: H5Error if the flush fails (disk full),
  // IoError if the seal cannot be written.
  void close();

 private:
  SetWriter create_group(const std::string& path, const std::vector<ColumnInfo>& columns,
                         std::size_t rows, const data::Attributes& attributes, bool is_set);

  std::string next_pack();

  std::string path_;
  Seal seal_;
  H5Id file_;
  std::size_t packs_ = 0;
};

}  // namespace perfit::io
