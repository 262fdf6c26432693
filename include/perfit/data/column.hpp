// One named column of a measurement set: float64, int64 or categorical strings, stored
// contiguously so the evaluator can stream it. Factors and the measured time are columns.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace perfit::data {

enum class ColumnType { float64, int64, string };
const char* to_string(ColumnType t);

class Column {
 public:
  using Storage =
      std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>>;

  Column(std::string name, Storage data) : name_(std::move(name)), data_(std::move(data)) {}
  // An empty column of the given type.
  static Column empty(std::string name, ColumnType type);

  const std::string& name() const { return name_; }
  // The same values under another name (a factor named by its column).
  Column with_name(std::string name) const {
    Column c = *this;
    c.name_ = std::move(name);
    return c;
  }
  ColumnType type() const { return static_cast<ColumnType>(data_.index()); }
  bool is_numeric() const { return type() != ColumnType::string; }
  std::size_t size() const;

  // Typed access. Precondition: type() matches (checked, programmer error otherwise).
  const std::vector<double>& f64() const;
  const std::vector<std::int64_t>& i64() const;
  const std::vector<std::string>& str() const;
  std::vector<double>& f64();
  std::vector<std::int64_t>& i64();
  std::vector<std::string>& str();

  // Numeric values as double (int64 converted). Throws: DataError for a string column.
  std::vector<double> to_double() const;
  // Value of row i as text (for messages and CSV output).
  std::string value_text(std::size_t i) const;

  // Appends other's values. An int64 column meeting float64 becomes float64.
  // Throws: DataError when one is a string column and the other is not.
  void append(const Column& other);
  // Keeps the rows whose mask entry is true.
  void filter(const std::vector<bool>& keep);
  // The given rows, in that order, as a new column of their size (filter keeps the capacity).
  // Precondition: every index < size().
  Column take(const std::vector<std::size_t>& rows) const;

 private:
  std::string name_;
  Storage data_;
};

}  // namespace perfit::data
