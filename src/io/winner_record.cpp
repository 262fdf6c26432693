#include "perfit/io/winner_record.hpp"

#include <algorithm>
#include <cstring>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"

namespace perfit::io {

namespace {

using data::Column;
using data::WireReader;
using data::WireTag;

// "perfit" + record layout 2: the result's fields without their names (result_fields_by_key's
// order; layout 1 named each, ~1.2 KB of a winner's ~3.4 KB, sent, journaled and read back).
constexpr std::uint64_t kRecordVersion = 0x7065726669740102ULL;
constexpr const char* kWhat = "a winner's record";
const char* const kParts[] = {"params", "ranges", "history"};

// The record's fields, in order: the result's (their names and count are this perfit's).
const std::vector<std::pair<std::string, const ResultField*>>& open_record(WireReader& in) {
  if (in.count() != kRecordVersion)
    throw DataError("a winner's record is not one this perfit writes (layout version)");
  const auto& keys = detail::result_fields_by_key();
  if (in.count() != keys.size()) throw DataError("a winner's record is malformed (fields)");
  return keys;
}

// Column::Storage's alternatives are in ColumnType's order; WireTag names them otherwise.
Column::Storage storage_of(WireTag t) {
  switch (t) {
    case WireTag::number:
      return std::vector<double>{};
    case WireTag::integer:
      return std::vector<std::int64_t>{};
    case WireTag::text:
      break;
  }
  return std::vector<std::string>{};
}
bool holds(const Column::Storage& s, WireTag t) {
  return t == WireTag::number    ? std::holds_alternative<std::vector<double>>(s)
         : t == WireTag::integer ? std::holds_alternative<std::vector<std::int64_t>>(s)
                                 : std::holds_alternative<std::vector<std::string>>(s);
}

// fields[k] for the k-th name read: made on the first winner (`first`), checked on the others.
template <class Field>
Field& field_at(std::vector<Field>& fields, std::size_t k, std::string_view name, WireTag t,
                bool first) {
  if (first) {
    fields.push_back({std::string(name), storage_of(t)});
  } else if (k >= fields.size() || fields[k].name != name || !holds(fields[k].values, t)) {
    throw ConfigError("a winner without a '" +
                      (k < fields.size() ? fields[k].name : std::string(name)) +
                      "' field of the first winner's type");
  }
  return fields[k];
}

// Appends n values of the column's type from the wire.
void append_values(WireReader& in, Column::Storage& to, std::uint64_t n) {
  if (auto* d = std::get_if<std::vector<double>>(&to)) {
    const char* p = in.take(n * sizeof(double));
    const std::size_t at = d->size();
    d->resize(at + n);
    if (n > 0) std::memcpy(d->data() + at, p, n * sizeof(double));
  } else if (auto* i = std::get_if<std::vector<std::int64_t>>(&to)) {
    const char* p = in.take(n * sizeof(std::int64_t));
    const std::size_t at = i->size();
    i->resize(at + n);
    if (n > 0) std::memcpy(i->data() + at, p, n * sizeof(std::int64_t));
  } else {
    auto& s = std::get<std::vector<std::string>>(to);
    for (std::uint64_t k = 0; k < n; ++k) s.emplace_back(in.text_view());
  }
}

// A table's columns appended to `to`; returns its rows.
template <class Field>
std::size_t append_table(WireReader& in, std::vector<Field>& to) {
  const std::uint64_t cols = in.count();
  const bool first = to.empty();
  if (!first && cols != to.size())
    throw ConfigError("a winner whose table has " + std::to_string(cols) + " columns, not " +
                      std::to_string(to.size()));
  std::uint64_t rows = 0;
  for (std::size_t k = 0; k < cols; ++k) {
    const std::string_view name = in.text_view();
    const WireTag t = in.tag();
    Field& f = field_at(to, k, name, t, first);
    const std::uint64_t n = in.elements(t == WireTag::text ? sizeof(std::uint64_t) : 8);
    if (k > 0 && n != rows)
      throw DataError("a winner's record is malformed (columns of unequal length)");
    rows = n;
    append_values(in, f.values, n);
  }
  return rows;
}

template <class Field>
data::MeasurementTable take(std::vector<Field>& fields) {
  data::MeasurementTable t;
  for (auto& f : fields) {
    Column::Storage empty = std::visit(
        [](const auto& v) { return Column::Storage(std::decay_t<decltype(v)>{}); }, f.values);
    t.add_column(Column(f.name, std::move(f.values)));
    f.values = std::move(empty);
  }
  return t;
}

}  // namespace

std::string winner_record(const ResultFile& r) {
  data::WireWriter out;
  out.reserve(4096);  // a winner's record is 2-3 KB (its run configuration most of it)
  out.count(kRecordVersion);
  out.count(result_attribute_count());  // result_attributes(r), without building the map
  each_result_attribute(r, [&](const std::string&, const auto& v) { out.value(v); });
  out.table(params_table(r.params, true));
  out.table(ranges_table(r.ranges));
  out.numbers(r.history);
  out.numbers(
      {r.metrics.mape, r.metrics.rmse, r.metrics.r2, r.metrics.gmae, r.metrics.max_rel_err});
  return out.take();
}

void widen_to_record(std::string_view bytes, std::map<std::string, std::size_t>& widths) {
  WireReader in(bytes, kWhat);
  for (const auto& [key, field] : open_record(in)) {
    switch (in.tag()) {
      case WireTag::number:
      case WireTag::integer:
        in.take(8);
        break;
      case WireTag::text: {
        std::size_t& w = widths[key];
        w = std::max(w, in.text_view().size());
      }
    }
  }
}

void WinnerColumns::add(std::string_view record) {
  WireReader in(record, kWhat);
  const auto& keys = open_record(in);
  const bool first = fields_.empty();
  const std::size_t n = keys.size();
  for (std::size_t k = 0; k < n; ++k) {
    const WireTag t = in.tag();
    if (first) {
      fields_.push_back({keys[k].first, storage_of(t)});
      if (keys[k].first == "set") set_field_ = k;
    } else if (!holds(fields_[k].values, t)) {
      throw ConfigError("a winner without a '" + fields_[k].name +
                        "' field of the first winner's type");
    }
    append_values(in, fields_[k].values, 1);
  }
  if (first && (fields_.empty() || fields_[set_field_].name != "set"))
    throw DataError("a winner's record without a set");
  const std::size_t counts[3] = {append_table(in, params_), append_table(in, ranges_), 0};
  const std::uint64_t h = in.elements(sizeof(double));
  const char* p = in.take(h * sizeof(double));
  const std::size_t at = history_.size();
  history_.resize(at + h);
  if (h > 0) std::memcpy(history_.data() + at, p, h * sizeof(double));
  if (in.elements(sizeof(double)) != std::size(kWinnerMetrics))
    throw DataError("a winner's record is malformed (metrics)");
  if (first) {
    for (const char* m : kWinnerMetrics) fields_.push_back({m, std::vector<double>{}});
    for (const char* part : kParts) {
      fields_.push_back({std::string(part) + "_first", std::vector<std::int64_t>{}});
      fields_.push_back({std::string(part) + "_count", std::vector<std::int64_t>{}});
    }
  }
  std::size_t k = n;
  for (std::size_t m = 0; m < std::size(kWinnerMetrics); ++m)
    append_values(in, fields_[k++].values, 1);
  if (!in.done()) throw DataError("a winner's record is malformed (bytes after its metrics)");
  const std::int64_t sizes[3] = {static_cast<std::int64_t>(counts[0]),
                                 static_cast<std::int64_t>(counts[1]),
                                 static_cast<std::int64_t>(h)};
  for (int part = 0; part < 3; ++part) {
    std::get<std::vector<std::int64_t>>(fields_[k++].values).push_back(first_[part]);
    std::get<std::vector<std::int64_t>>(fields_[k++].values).push_back(sizes[part]);
    first_[part] += sizes[part];
  }
}

const std::string& WinnerColumns::last_set() const {
  return std::get<std::vector<std::string>>(fields_.at(set_field_).values).back();
}

std::vector<GroupColumn> WinnerColumns::shape(
    const std::map<std::string, std::size_t>& widths) const {
  std::vector<GroupColumn> out;
  for (const auto& f : fields_) {
    const auto it = widths.find(f.name);
    out.push_back({f.name, static_cast<data::ColumnType>(f.values.index()),
                   it == widths.end() ? 0 : it->second});
  }
  return out;
}

data::MeasurementTable WinnerColumns::take_block() { return take(fields_); }
data::MeasurementTable WinnerColumns::take_params() { return take(params_); }
data::MeasurementTable WinnerColumns::take_ranges() { return take(ranges_); }

}  // namespace perfit::io
