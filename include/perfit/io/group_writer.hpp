// A plain group's columns (not a measurement set) written block by block, for a table too
// large to hold at once (a selection's 10^5 winners), laid out as StoreWriter::write_group lays
// out a whole table: below kChunkThresholdRows rows contiguous datasets with variable-length
// strings; from there chunked, compressed datasets with fixed-length strings as wide as the
// longest value, which the caller states (it has seen every row once).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/h5_id.hpp"

namespace perfit {
class WorkerPool;  // core/worker_pool.hpp
}

namespace perfit::io {

namespace detail {
class ChunkMemo;     // which columns hardly deflate (src/io/deflated_chunks.hpp)
class DeflateBatch;  // a block's chunks deflated on threads (the same)
}  // namespace detail

struct GroupColumn {
  std::string name;
  data::ColumnType type = data::ColumnType::float64;
  std::size_t width = 0;  // strings: the longest value, in bytes
};

class GroupWriter {
 public:
  GroupWriter(H5Id group, std::vector<GroupColumn> columns, std::size_t rows, std::string where);
  GroupWriter(GroupWriter&&) noexcept;
  GroupWriter& operator=(GroupWriter&&) noexcept;
  ~GroupWriter();
  // Writes block's rows at [offset, offset + block.rows()); columns matched by name.
  // Throws: DataError for a block missing a column, of another type, wider text or overrunning.
  void write(std::size_t offset, const data::MeasurementTable& block);
  // The same from rows as the datasets hold them, one pointer per column in the writer's
  // order: numbers as 8-byte values in memory's byte order, text as `width` bytes a row
  // (at least 1), zero-padded. Written as they are, with no column or string made per row.
  void write_bytes(std::size_t offset, std::size_t rows, const std::vector<const char*>& columns);

 private:
  void check_fits(std::size_t offset, std::size_t rows) const;
  detail::DeflateBatch deflate_batch();
  H5Id group_;
  std::vector<GroupColumn> columns_;
  std::vector<H5Id> datasets_;
  std::size_t rows_;
  bool fixed_;  // fixed-length strings
  std::string where_;
  std::unique_ptr<detail::ChunkMemo> memo_;  // across blocks
  std::unique_ptr<WorkerPool> threads_;      // deflating every block, once started
};

}  // namespace perfit::io
