#include "perfit/io/group_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "deflated_chunks.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io {

namespace {

// A column of a block given as bytes (GroupWriter::write_bytes), as values.
data::Column column_of(const GroupColumn& c, const char* bytes, std::size_t rows) {
  switch (c.type) {
    case data::ColumnType::float64: {
      std::vector<double> v(rows);
      std::memcpy(v.data(), bytes, rows * sizeof(double));
      return data::Column(c.name, std::move(v));
    }
    case data::ColumnType::int64: {
      std::vector<std::int64_t> v(rows);
      std::memcpy(v.data(), bytes, rows * sizeof(std::int64_t));
      return data::Column(c.name, std::move(v));
    }
    case data::ColumnType::string:
      break;
  }
  const std::size_t width = std::max<std::size_t>(c.width, 1);
  std::vector<std::string> v;
  v.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const char* text = bytes + r * width;
    v.emplace_back(text, strnlen(text, width));
  }
  return data::Column(c.name, std::move(v));
}

}  // namespace

GroupWriter::GroupWriter(H5Id group, std::vector<GroupColumn> columns, std::size_t rows,
                         std::string where)
    : group_(std::move(group)),
      columns_(std::move(columns)),
      rows_(rows),
      fixed_(rows >= kChunkThresholdRows),
      where_(std::move(where)),
      memo_(std::make_unique<detail::ChunkMemo>()) {
  for (const auto& c : columns_) {
    // A variable-length string is a heap object of its own: 50 text columns x 2*10^5 winners
    // made a 471 MB file; fixed-length text repeated across rows compresses.
    datasets_.push_back(
        fixed_ && c.type == data::ColumnType::string
            ? detail::create_fixed_strings(group_.get(), c.name, c.width, rows_, kPackChunkRows,
                                           where_)
                  .to_id()
            : detail::create_column(group_.get(), {c.name, c.type}, rows_, kGroupChunkRows, where_)
                  .to_id());
  }
}

GroupWriter::GroupWriter(GroupWriter&&) noexcept = default;
GroupWriter& GroupWriter::operator=(GroupWriter&&) noexcept = default;
GroupWriter::~GroupWriter() = default;

void GroupWriter::check_fits(std::size_t offset, std::size_t rows) const {
  if (offset + rows > rows_) {
    throw DataError(where_ + ": writing rows [" + std::to_string(offset) + ", " +
                    std::to_string(offset + rows) + ") overruns the group's " +
                    std::to_string(rows_) + " rows");
  }
}

detail::DeflateBatch GroupWriter::deflate_batch() {
  // Only a group of chunked columns deflates: a small one's are contiguous, and a result file
  // writes several such groups.
  if (fixed_ && !threads_) threads_ = detail::deflate_threads();
  return detail::DeflateBatch(memo_.get(), threads_.get());
}

void GroupWriter::write(std::size_t offset, const data::MeasurementTable& block) {
  check_fits(offset, block.rows());
  if (block.rows() == 0) return;
  detail::DeflateBatch batch = deflate_batch();  // every column's chunks deflated side by side
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const data::Column& col = block.column(columns_[i].name);
    const std::string w = "write " + where_ + " dataset '" + columns_[i].name + "'";
    if (fixed_ && columns_[i].type == data::ColumnType::string) {
      if (col.type() != data::ColumnType::string)
        throw DataError(w + ": text in the group, numbers in the rows");
      detail::write_fixed_strings_at(datasets_[i].get(), col.str(), offset, kPackChunkRows, w,
                                     &batch);
    } else {
      detail::write_column(datasets_[i].get(), columns_[i].type, col, offset, w, &batch);
    }
  }
  batch.run();
}

void GroupWriter::write_bytes(std::size_t offset, std::size_t rows,
                              const std::vector<const char*>& columns) {
  check_fits(offset, rows);
  if (columns.size() != columns_.size()) {
    throw DataError(where_ + ": a block of " + std::to_string(columns.size()) +
                    " columns for a group of " + std::to_string(columns_.size()));
  }
  if (rows == 0) return;
  if (!fixed_) {  // variable-length text: strings it is
    data::MeasurementTable block;
    for (std::size_t i = 0; i < columns_.size(); ++i)
      block.add_column(column_of(columns_[i], columns[i], rows));
    write(offset, block);
    return;
  }
  detail::DeflateBatch batch = deflate_batch();
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const std::string w = "write " + where_ + " dataset '" + columns_[i].name + "'";
    if (columns_[i].type == data::ColumnType::string) {
      detail::write_fixed_bytes_at(datasets_[i].get(), columns[i], rows, offset, kPackChunkRows, w,
                                   &batch);
    } else {
      detail::write_numbers_at(datasets_[i].get(), columns_[i].type, columns[i], rows, offset, w,
                               &batch);
    }
  }
  batch.run();
}

}  // namespace perfit::io
