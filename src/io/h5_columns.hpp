// Private helpers shared by the store's set and pack code: one column as a 1-D dataset
// (created, written at an offset, read as a hyperslab).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "h5_handle.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::io::detail {

class DeflateBatch;  // deflated_chunks.hpp

// Names of a group's members, in creation order when the group tracks it (perfit's do).
std::vector<std::string> member_names(hid_t group);

// Throws: DataError for an HDF5 type other than float, integer or string.
data::ColumnType column_type_of(hid_t dset, const std::string& where);

// A 1-D dataset of `rows` rows; chunked by `chunk_rows` and (numbers) compressed when it has
// at least kChunkThresholdRows rows, contiguous below.
H5Dataset create_column(hid_t group, const ColumnInfo& column, std::size_t rows,
                        std::size_t chunk_rows, const std::string& where);

// Writes col's values at rows [offset, offset + col.size()) of a dataset of type `type`.
// Throws: DataError when col's type is not the dataset's.
// batch: where whole deflated chunks go, to be compressed with other columns' (it writes
// them); without, they are written here.
void write_column(hid_t dset, data::ColumnType type, const data::Column& col, std::size_t offset,
                  const std::string& where, DeflateBatch* batch = nullptr);
// The same from n values of the dataset's numeric type (int64 or float64) in memory.
void write_numbers_at(hid_t dset, data::ColumnType type, const void* values, std::size_t n,
                      std::size_t offset, const std::string& where, DeflateBatch* batch = nullptr);

// A 1-D fixed-length UTF-8 string dataset (as wide as the longest value, chunked and
// compressed when long): text repeated across 10^5 rows compresses, variable-length strings
// (a heap entry each) do not.
void write_fixed_strings(hid_t group, const std::string& name,
                         const std::vector<std::string>& values, std::size_t chunk_rows,
                         const std::string& where);
// The same in two steps, for a column written block by block: created `width` bytes wide
// (at least 1), then values written at rows [offset, offset + values.size()).
// Throws: DataError for a value wider than the column.
H5Dataset create_fixed_strings(hid_t group, const std::string& name, std::size_t width,
                               std::size_t rows, std::size_t chunk_rows, const std::string& where);
void write_fixed_strings_at(hid_t dset, const std::vector<std::string>& values, std::size_t offset,
                            std::size_t chunk_rows, const std::string& where,
                            DeflateBatch* batch = nullptr);
// The same from n rows as the dataset holds them: each as wide as the column, zero-padded.
// With a batch, `bytes` stay valid until it runs.
void write_fixed_bytes_at(hid_t dset, const char* bytes, std::size_t n, std::size_t offset,
                          std::size_t chunk_rows, const std::string& where,
                          DeflateBatch* batch = nullptr);
// What a text wider than its fixed-length column is refused with: "a text of B bytes in a
// column W wide".
std::string too_wide(std::size_t bytes, std::size_t width);

// Throws: DataError when the dataset does not hold the rows it declares (never written, or in
// part), naming `where`. Walks the dataset's chunk index: once per dataset where reads repeat.
void check_readable(hid_t dset, std::size_t first, std::size_t rows, const std::string& where);

// Bytes one row of the column takes in memory once read (a string's text and its std::string).
double row_bytes(hid_t dset, const ColumnInfo& column, const std::string& where);

// Rows read at once that need more than half the machine's memory: refused in one line naming
// `where`, before anything is allocated (a compression bomb: 10^9 zeros in kilobytes on disk).
// Throws: DataError.
void check_fits_in_memory(double bytes, std::size_t rows, std::size_t columns,
                          const std::string& where);

// Rows [begin, begin + count) of a column; any float or integer width, fixed or variable strings.
// checked: check_readable has passed for this dataset.
data::Column read_column(hid_t dset, const ColumnInfo& column, std::size_t begin, std::size_t count,
                         const std::string& where, bool checked = false);

}  // namespace perfit::io::detail
