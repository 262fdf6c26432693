#include "perfit/data/measurement_table.hpp"

#include <cstdio>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::data {

std::string attribute_text(const AttributeValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", std::get<double>(v));
  return buf;
}

void MeasurementTable::add_column(Column c) {
  if (find(c.name())) throw DataError("duplicate column name '" + c.name() + "'");
  if (!columns_.empty() && c.size() != rows()) {
    throw DataError("column '" + c.name() + "' has " + std::to_string(c.size()) +
                    " rows, the other columns have " + std::to_string(rows()));
  }
  columns_.push_back(std::move(c));
}

std::vector<std::string> MeasurementTable::column_names() const {
  std::vector<std::string> names;
  names.reserve(columns_.size());
  for (const auto& c : columns_) names.push_back(c.name());
  return names;
}

const Column* MeasurementTable::find(std::string_view name) const {
  for (const auto& c : columns_) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

const Column& MeasurementTable::column(std::string_view name) const {
  if (const Column* c = find(name)) return *c;
  throw DataError("no column '" + std::string(name) + "'; the set has: " + join(column_names()));
}

void MeasurementTable::append(const MeasurementTable& other) {
  for (const auto& c : other.columns_) {
    if (!find(c.name())) {
      throw DataError("new rows have column '" + c.name() +
                      "' which the existing set lacks; existing columns: " + join(column_names()));
    }
  }
  for (auto& c : columns_) {
    if (!other.find(c.name())) {
      throw DataError("new rows lack column '" + c.name() +
                      "' of the existing set; new columns: " + join(other.column_names()));
    }
  }
  for (auto& c : columns_) c.append(other.column(c.name()));
}

void MeasurementTable::filter_rows(const std::vector<bool>& keep) {
  for (auto& c : columns_) c.filter(keep);
}

MeasurementTable MeasurementTable::take_rows(const std::vector<std::size_t>& rows) const {
  MeasurementTable out;
  for (const auto& c : columns_) out.add_column(c.take(rows));
  out.attributes() = attributes_;
  return out;
}

std::string MeasurementTable::attribute_string(const std::string& key,
                                               const std::string& fallback) const {
  auto it = attributes_.find(key);
  return it == attributes_.end() ? fallback : attribute_text(it->second);
}

}  // namespace perfit::data
