// A measurement set in memory: named columns of equal length plus the set's attributes
// (target column, unit, provenance, ground truth of synthetic sets). Only the columns a
// caller asked for are loaded, and possibly only a row range of them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "perfit/data/column.hpp"

namespace perfit::data {

using AttributeValue = std::variant<std::string, double, std::int64_t>;
using Attributes = std::map<std::string, AttributeValue>;
std::string attribute_text(const AttributeValue& v);

class MeasurementTable {
 public:
  MeasurementTable() = default;

  // Throws: DataError for a duplicate name or a length different from the other columns.
  void add_column(Column c);

  std::size_t rows() const { return columns_.empty() ? 0 : columns_.front().size(); }
  std::size_t cols() const { return columns_.size(); }
  const std::vector<Column>& columns() const { return columns_; }
  std::vector<Column>& columns() { return columns_; }
  std::vector<std::string> column_names() const;

  const Column* find(std::string_view name) const;
  // Throws: DataError naming the missing column and listing the ones there are.
  const Column& column(std::string_view name) const;

  // Appends rows of a table with the same column names (any order).
  // Throws: DataError naming a column that one side has and the other has not.
  void append(const MeasurementTable& other);
  void filter_rows(const std::vector<bool>& keep);
  // The given rows, in that order, with the same attributes (Column::take).
  MeasurementTable take_rows(const std::vector<std::size_t>& rows) const;

  Attributes& attributes() { return attributes_; }
  const Attributes& attributes() const { return attributes_; }
  // String attribute or fallback.
  std::string attribute_string(const std::string& key, const std::string& fallback = "") const;
  // Name of the measured-time column (attribute "target"), empty if unset.
  std::string target() const { return attribute_string("target"); }

 private:
  std::vector<Column> columns_;
  Attributes attributes_;
};

}  // namespace perfit::data
