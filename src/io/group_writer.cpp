#include "perfit/io/group_writer.hpp"

#include "deflated_chunks.hpp"
#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/store_format.hpp"

namespace perfit::io {

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

void GroupWriter::write(std::size_t offset, const data::MeasurementTable& block) {
  if (offset + block.rows() > rows_) {
    throw DataError(where_ + ": writing rows [" + std::to_string(offset) + ", " +
                    std::to_string(offset + block.rows()) + ") overruns the group's " +
                    std::to_string(rows_) + " rows");
  }
  if (block.rows() == 0) return;
  detail::DeflateBatch batch(memo_.get());  // every column's chunks deflated side by side
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

}  // namespace perfit::io
