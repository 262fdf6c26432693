// Attributes, tables and numbers as bytes, for what one rank sends another (a selection's
// winners to rank 0): doubles travel as their bits, so a value arrives exactly and nothing is
// formatted or parsed as text (JSON text and its objects were half of a selection over 10^4
// small sets).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

// What kind of value or column follows (one byte on the wire).
enum class WireTag : std::uint8_t { text = 0, number = 1, integer = 2 };

class WireWriter {
 public:
  void count(std::uint64_t n);
  void number(double v);
  void text(std::string_view s);
  void text_parts(std::initializer_list<std::string_view> parts);  // one text, written in parts
  void numbers(const std::vector<double>& v);
  void value(const AttributeValue& v);
  void value(double v);
  void value(std::int64_t v);
  void value(const std::string& v);
  void attributes(const Attributes& a);
  void table(const MeasurementTable& t);  // columns (name, type, values); no attributes
  std::string take() { return std::move(bytes_); }
  void reserve(std::size_t bytes) { bytes_.reserve(bytes); }  // when the size is known ahead

 private:
  std::string bytes_;
};

// Reads what a WireWriter wrote, in the same order. Throws: DataError naming `what` when the
// bytes end early or hold an unknown type.
class WireReader {
 public:
  // The bytes are read in place: they must outlive the reader.
  WireReader(std::string_view bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}
  std::uint64_t count();
  double number();
  std::string text();
  std::string_view text_view();  // the text in place: valid while the bytes are
  std::int64_t integer();
  WireTag tag();  // Throws: DataError for a byte that is no WireTag
  std::vector<double> numbers();
  AttributeValue value();
  Attributes attributes();
  MeasurementTable table();
  bool done() const { return at_ == bytes_.size(); }
  std::size_t position() const { return at_; }  // bytes read so far
  // For readers that copy values straight into their own storage (io::WinnerColumns): the next
  // n bytes in place, and a count that the bytes left can hold at least_bytes each.
  const char* take(std::size_t n);
  std::uint64_t elements(std::size_t least_bytes);

 private:
  std::string_view bytes_;
  std::string what_;
  std::size_t at_ = 0;
};

}  // namespace perfit::data
