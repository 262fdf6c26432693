#include "perfit/io/winner_record.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <iterator>

#include "h5_columns.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/data/wire.hpp"
#include "record_layout.hpp"

namespace perfit::io {

namespace {

using data::Column;
using data::WireReader;
using data::WireTag;
using detail::kConfigKey;
using detail::kRecordVersion;
using detail::kWhat;
using detail::open_record;

const char* const kParts[] = {"params", "ranges", "history"};

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

// Room for `rows` rows in each column: grown by doubling, 2*10^6 /params rows of 10^6 winners
// were written twice over into fresh pages, 4% of the write of their store.
template <class Field>
void reserve(std::vector<Field>& fields, std::size_t rows) {
  for (auto& f : fields) std::visit([&](auto& v) { v.reserve(rows); }, f.values);
}

// A run's table rows appended to every winner's so far: the same columns, or refused.
template <class Field>
void join(std::vector<Field>& to, std::vector<Field>& from) {
  if (from.empty()) return;
  if (to.empty()) {
    to = std::move(from);
    return;
  }
  if (from.size() != to.size())
    throw ConfigError("a winner whose table has " + std::to_string(from.size()) + " columns, not " +
                      std::to_string(to.size()));
  for (std::size_t k = 0; k < to.size(); ++k) {
    if (from[k].name != to[k].name || from[k].values.index() != to[k].values.index())
      throw ConfigError("a winner without a '" + to[k].name + "' field of the first winner's type");
    std::visit(
        [&](auto& into) {
          auto& more = std::get<std::decay_t<decltype(into)>>(from[k].values);
          into.insert(into.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
        },
        to[k].values);
  }
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

WinnerColumns::WinnerColumns(std::map<std::string, std::size_t> widths, std::string where,
                             std::size_t winners, const std::vector<WinnerConfigs::Entry>* named)
    : widths_(std::move(widths)), where_(std::move(where)), winners_(winners), named_(named) {}

void WinnerColumns::learn(std::string_view record) {
  WireReader in(record, kWhat);
  const auto& keys = open_record(in);
  const auto add = [&](std::string name, WireTag t) {
    const std::size_t width = t == WireTag::text ? widths_[name] : 0;
    shape_.push_back(
        {std::move(name), static_cast<data::ColumnType>(storage_of(t).index()), width});
    tags_.push_back(t);
    row_bytes_.push_back(t == WireTag::text ? std::max<std::size_t>(width, 1) : 8);
  };
  for (const auto& [key, field] : keys) {
    const WireTag t = in.tag();
    if (key == "set" && t == WireTag::text) set_field_ = shape_.size();
    if (key == kConfigKey) {  // the record's text or number, the store's row
      config_field_ = shape_.size();
      add("config_index", WireTag::integer);
      tags_.back() = t;
    } else {
      add(key, t);
    }
    if (t == WireTag::text) {
      in.text_view();
    } else {
      in.take(8);
    }
  }
  fields_ = keys.size();
  if (shape_.empty() || shape_[set_field_].name != "set")
    throw DataError("a winner's record without a set");
  for (const char* m : kWinnerMetrics) add(m, WireTag::number);
  for (const char* part : kParts) {
    add(std::string(part) + "_first", WireTag::integer);
    add(std::string(part) + "_count", WireTag::integer);
  }
  bytes_.resize(shape_.size());
}

void WinnerColumns::decode_one(std::string_view record, std::size_t row, Part& part) {
  WireReader in(record, kWhat);
  open_record(in);
  std::string_view config, set;  // the set comes after the configuration: kept till then
  std::int64_t named = -1;       // or the configuration's number
  for (std::size_t k = 0; k < fields_; ++k) {
    const WireTag t = in.tag();
    if (k == config_field_) {  // its text, or the number of one carried before
      if (t == WireTag::integer) {
        named = in.integer();
      } else if (t == WireTag::text) {
        config = in.text_view();
      } else {
        throw DataError("a winner's record is malformed (configuration)");
      }
      continue;
    }
    if (t != tags_[k]) {
      throw ConfigError("a winner without a '" + shape_[k].name +
                        "' field of the first winner's type");
    }
    char* to = at(k, row);
    if (t != WireTag::text) {
      std::memcpy(to, in.take(8), 8);
      continue;
    }
    const std::string_view text = in.text_view();
    if (k == set_field_) set = text;
    if (text.size() > row_bytes_[k]) {
      throw DataError("write " + where_ + " dataset '" + shape_[k].name +
                      "': " + detail::too_wide(text.size(), row_bytes_[k]));
    }
    std::memcpy(to, text.data(), text.size());
    std::memset(to + text.size(), 0, row_bytes_[k] - text.size());
  }
  if (config_field_ < fields_) {
    const auto local = static_cast<std::int64_t>(named < 0 ? part.configs.add(config, set)
                                                           : part_row_of(named, part));
    std::memcpy(at(config_field_, row), &local, sizeof local);
  }
  const std::size_t params = append_table(in, part.params), ranges = append_table(in, part.ranges);
  const std::uint64_t h = in.elements(sizeof(double));
  const char* p = in.take(h * sizeof(double));
  const std::size_t was = part.history.size();
  part.history.resize(was + h);
  if (h > 0) std::memcpy(part.history.data() + was, p, h * sizeof(double));
  if (in.elements(sizeof(double)) != std::size(kWinnerMetrics))
    throw DataError("a winner's record is malformed (metrics)");
  std::size_t k = fields_;
  for (std::size_t m = 0; m < std::size(kWinnerMetrics); ++m)
    std::memcpy(at(k++, row), in.take(8), 8);
  if (!in.done()) throw DataError("a winner's record is malformed (bytes after its metrics)");
  // Each part's count; where its rows start is known once the rows before are (decode).
  for (const std::int64_t count :
       {static_cast<std::int64_t>(params), static_cast<std::int64_t>(ranges),
        static_cast<std::int64_t>(h)}) {
    std::memcpy(at(k + 1, row), &count, sizeof count);
    k += 2;
  }
}

std::size_t WinnerColumns::part_row_of(std::int64_t named, Part& part) const {
  const std::size_t n = named_ == nullptr ? 0 : named_->size();
  if (named < 0 || static_cast<std::size_t>(named) >= n) {
    throw DataError("a winner's record names run configuration " + std::to_string(named) +
                    ", expected 0 .. " + std::to_string(static_cast<std::int64_t>(n) - 1) +
                    " (the ones its journal carried before it)");
  }
  const auto i = static_cast<std::size_t>(named);
  // The part's row of each named one, found once: an entry's key is its ~1 KB of text.
  if (part.row_of_named.size() <= i) part.row_of_named.resize(i + 1, -1);
  if (part.row_of_named[i] < 0)
    part.row_of_named[i] = static_cast<std::int64_t>(part.configs.add((*named_)[i]));
  return static_cast<std::size_t>(part.row_of_named[i]);
}

void WinnerColumns::decode(std::size_t first, std::size_t n, const Records& record,
                           WorkerPool& threads) {
  rows_ = 0;
  if (n == 0) return;
  std::string learnt;  // the first winner's record: asked for once
  if (shape_.empty()) {
    learnt = std::string(record(first, learnt));
    learn(learnt);
  }
  for (std::size_t c = 0; c < shape_.size(); ++c) bytes_[c].resize(n * row_bytes_[c]);
  // Runs of consecutive rows, a few per thread: each run's table rows in order, joined after.
  const std::size_t runs = std::min<std::size_t>(n, 4 * std::size_t{threads.threads()});
  std::vector<Part> part(runs);
  std::vector<std::exception_ptr> error(runs);  // the first bad winner's is the one told
  threads.for_each(runs, [&](std::size_t r) {
    std::string scratch;
    try {
      for (std::size_t row = n * r / runs; row < n * (r + 1) / runs; ++row) {
        decode_one(
            row == 0 && !learnt.empty() ? std::string_view(learnt) : record(first + row, scratch),
            row, part[r]);
      }
    } catch (...) {
      error[r] = std::current_exception();
    }
  });
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
  // Each run's configurations renumbered as every winner's, in the order of the rows: the same
  // store whatever the thread count.
  for (std::size_t r = 0; config_field_ < fields_ && r < runs; ++r) {
    std::vector<std::int64_t> row_of;
    for (const auto& e : part[r].configs.entries())
      row_of.push_back(static_cast<std::int64_t>(configs_.add(e)));
    for (std::size_t row = n * r / runs; row < n * (r + 1) / runs; ++row) {
      std::int64_t i = 0;
      std::memcpy(&i, at(config_field_, row), sizeof i);
      std::memcpy(at(config_field_, row), &row_of[static_cast<std::size_t>(i)], sizeof i);
    }
  }
  for (std::size_t k = 0, c = fields_ + std::size(kWinnerMetrics); k < 3; ++k, c += 2) {
    for (std::size_t row = 0; row < n; ++row) {
      std::int64_t count = 0;
      std::memcpy(&count, at(c + 1, row), sizeof count);
      std::memcpy(at(c, row), &first_[k], sizeof first_[k]);
      first_[k] += count;
    }
  }
  for (Part& p : part) {
    join(params_, p.params);
    join(ranges_, p.ranges);
    history_.insert(history_.end(), p.history.begin(), p.history.end());
  }
  rows_ = n;
  if (first == 0 && n < winners_) {  // room for every winner's rows, as many as the first's
    const auto every = [&](std::int64_t so_far) {
      return static_cast<std::size_t>(static_cast<double>(so_far) * static_cast<double>(winners_) /
                                      static_cast<double>(n) * 1.05);
    };
    reserve(params_, every(first_[0]));
    reserve(ranges_, every(first_[1]));
    history_.reserve(every(first_[2]));
  }
}

std::vector<const char*> WinnerColumns::block() const {
  std::vector<const char*> out;
  for (const auto& b : bytes_) out.push_back(b.data());
  return out;
}

std::string WinnerColumns::set(std::size_t row) const {
  const char* text = bytes_.at(set_field_).data() + row * row_bytes_[set_field_];
  return std::string(text, strnlen(text, row_bytes_[set_field_]));
}

data::MeasurementTable WinnerColumns::take_params() { return take(params_); }
data::MeasurementTable WinnerColumns::take_ranges() { return take(ranges_); }

}  // namespace perfit::io
