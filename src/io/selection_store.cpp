#include "perfit/io/selection_store.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

namespace {

using data::Column;

// Per set: where its rows of /params, /ranges and /history start and how many there are.
constexpr const char* kParts[] = {"params", "ranges", "history"};
const char* const kMetricNames[] = {"metric_mape", "metric_rmse", "metric_r2", "metric_gmae", "metric_max_rel_err"};

std::vector<double> metric_values(const model::FitMetrics& m) { return {m.mape, m.rmse, m.r2, m.gmae, m.max_rel_err}; }

std::string text_of(const data::Attributes& a, const char* key) {
  const auto it = a.find(key);
  return it == a.end() ? std::string() : data::attribute_text(it->second);
}

// The column type that holds v (Column::Storage's alternatives are in ColumnType's order).
data::ColumnType type_of(const data::AttributeValue& v) {
  return std::holds_alternative<std::string>(v) ? data::ColumnType::string
         : std::holds_alternative<double>(v)    ? data::ColumnType::float64
                                                : data::ColumnType::int64;
}

// acc gets t's rows (the same columns in each winner's table).
void append_rows(std::vector<Column>& acc, const data::MeasurementTable& t) {
  if (acc.empty()) {
    acc = t.columns();
    return;
  }
  for (auto& c : acc) c.append(t.column(c.name()));
}

data::MeasurementTable table_of(std::vector<Column>& columns) {
  data::MeasurementTable t;
  for (auto& c : columns) t.add_column(std::move(c));
  return t;
}

// Rows of attribute maps (the same keys and types in each) as columns, one row at a time, so
// that the rows need not all be held (10^5 winners of a few KB each).
class RowsTable {
 public:
  void add(const data::Attributes& row) {
    if (columns_.empty()) {
      for (const auto& [key, v] : row) {
        columns_.emplace_back(key, std::visit([](const auto& x) { return Column::Storage(std::vector<std::decay_t<decltype(x)>>{}); }, v));
      }
    }
    for (auto& column : columns_) {  // not a structured binding: lambdas cannot capture those before clang 16
      const auto it = row.find(column.first);
      if (it == row.end() || static_cast<std::size_t>(type_of(it->second)) != column.second.index()) {
        throw ConfigError("a winner without a '" + column.first + "' field of the first winner's type");
      }
      const data::AttributeValue& v = it->second;
      std::visit([&](auto& vec) { vec.push_back(std::get<typename std::decay_t<decltype(vec)>::value_type>(v)); },
                 column.second);
    }
  }
  data::MeasurementTable table() {
    data::MeasurementTable t;
    for (auto& [key, values] : columns_) t.add_column(Column(key, std::move(values)));
    return t;
  }

 private:
  std::vector<std::pair<std::string, Column::Storage>> columns_;
};

// The /winners columns, as wide as their longest text: what the first pass over the winners
// learns before the second writes them block by block.
class WinnersShape {
 public:
  void add(const data::Attributes& row) {
    if (columns_.empty()) {
      for (const auto& [key, v] : row) {
        columns_.push_back({key, type_of(v), 0});
      }
    }
    for (auto& c : columns_) {
      const auto it = row.find(c.name);
      if (it != row.end() && std::holds_alternative<std::string>(it->second)) {
        c.width = std::max(c.width, std::get<std::string>(it->second).size());
      }
    }
  }
  const std::vector<GroupColumn>& columns() const { return columns_; }

 private:
  std::vector<GroupColumn> columns_;
};

// A winner's /winners row: its fields, metrics, and where its parts start (first, advanced
// past them) and how many rows each has. Throws: ConfigError without 5 metrics.
data::Attributes winner_row(WinnerParts& w, std::int64_t first[3]) {
  if (w.metrics.size() != std::size(kMetricNames)) throw ConfigError("winner of set '" + text_of(w.fields, "set") + "': not 5 metrics");
  data::Attributes a = std::move(w.fields);
  for (std::size_t m = 0; m < w.metrics.size(); ++m) a[kMetricNames[m]] = w.metrics[m];
  const std::size_t counts[3] = {w.params.rows(), w.ranges.rows(), w.history.size()};
  for (int p = 0; p < 3; ++p) {
    a[std::string(kParts[p]) + "_first"] = first[p];
    a[std::string(kParts[p]) + "_count"] = static_cast<std::int64_t>(counts[p]);
    first[p] += static_cast<std::int64_t>(counts[p]);
  }
  return a;
}

constexpr std::size_t kWinnersBlock = 8192;  // rows of /winners held at once while writing

}  // namespace

WinnerParts winner_parts(const ResultFile& r) {
  return {result_attributes(r), params_table(r.params, true), ranges_table(r.ranges), r.history, metric_values(r.metrics)};
}

void write_selection_store(const std::string& path, std::vector<const ResultFile*> winners, const data::Attributes& about) {
  std::sort(winners.begin(), winners.end(), [](const ResultFile* a, const ResultFile* b) { return a->set < b->set; });
  write_selection_store(path, winners.size(), [&](std::size_t i) { return winner_parts(*winners[i]); }, about);
}

namespace {

// The order of the winners' sets, checked as they come.
void check_order(const std::vector<std::string>& sets, const std::string& set) {
  if (!sets.empty() && set <= sets.back()) {
    throw ConfigError(set == sets.back() ? "two winners for set '" + set + "'"
                                         : "winners out of set order: '" + set + "' after '" + sets.back() + "'");
  }
}

// The /winners columns of a row whose text widths were given.
std::vector<GroupColumn> columns_of(const data::Attributes& row, const std::map<std::string, std::size_t>& widths) {
  std::vector<GroupColumn> out;
  for (const auto& [key, v] : row) {
    const auto it = widths.find(key);
    out.push_back({key, type_of(v), it == widths.end() ? 0 : it->second});
  }
  return out;
}

// Without widths, a first pass: the winners' order and each text column's width.
std::vector<GroupColumn> first_pass(std::size_t n, const std::function<WinnerParts(std::size_t)>& winner) {
  std::vector<std::string> sets;
  WinnersShape shape;
  std::int64_t first[3] = {0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    WinnerParts w = winner(i);
    std::string set = text_of(w.fields, "set");
    check_order(sets, set);
    sets.push_back(std::move(set));
    shape.add(winner_row(w, first));
  }
  return shape.columns();
}

}  // namespace

void write_selection_store(const std::string& path, std::size_t n, const std::function<WinnerParts(std::size_t)>& winner,
                           const data::Attributes& about, const std::map<std::string, std::size_t>* text_widths) {
  // Each winner held one at a time, /winners written block by block (10^5 winners of a few KB
  // each held as columns were half of rank 0's memory); its text columns' widths either given
  // or learnt by a first pass.
  std::optional<std::vector<GroupColumn>> shape;
  if (!text_widths && n >= kChunkThresholdRows) shape = first_pass(n, winner);
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    w.write_root_attribute("perfit_selection", std::string(kSelectionFormat));
    w.write_root_attribute("winners", static_cast<std::int64_t>(n));
    for (const auto& [key, value] : about) w.write_root_attribute(key, value);
    if (n == 0) {  // only the description: no set had a winner
      w.close();
      return;
    }
    std::vector<std::string> sets;
    std::vector<Column> params, ranges;
    std::vector<double> history;
    std::int64_t first[3] = {0, 0, 0};  // where the next winner's params, ranges and history start
    std::optional<GroupWriter> winners;
    for (std::size_t begin = 0; begin < n; begin += kWinnersBlock) {
      RowsTable block;
      for (std::size_t i = begin; i < std::min(n, begin + kWinnersBlock); ++i) {
        WinnerParts p = winner(i);
        std::string set = text_of(p.fields, "set");
        check_order(sets, set);
        sets.push_back(std::move(set));
        append_rows(params, p.params);
        append_rows(ranges, p.ranges);
        history.insert(history.end(), p.history.begin(), p.history.end());
        data::Attributes row = winner_row(p, first);
        if (!winners) {  // below kChunkThresholdRows rows text is variable-length: no widths needed
          const std::map<std::string, std::size_t> none;
          winners.emplace(w.stream_group("/winners", shape ? *shape : columns_of(row, text_widths ? *text_widths : none), n));
        }
        block.add(row);
      }
      winners->write(begin, block.table());
    }
    winners.reset();  // its datasets closed before the file is: the seal covers every byte
    data::MeasurementTable index;
    index.add_column(Column("set", sets));
    w.write_group("/index", index);
    w.write_group("/params", table_of(params));
    w.write_group("/ranges", table_of(ranges));
    data::MeasurementTable h;
    h.add_column(Column("best_cost", history));
    w.write_group("/history", h);
    w.close();
  });
}

namespace {

// Opens a selection store: sealed, and marked as one.
StoreReader open_selection(const std::string& path) {
  verify_seal(path, "selection store");
  StoreReader rd(path);
  const data::Attributes a = rd.root_attributes();
  const auto fmt = a.find("perfit_selection");
  if (fmt == a.end()) throw DataError("'" + path + "' is not a perfit selection store (no 'perfit_selection' attribute)");
  if (data::attribute_text(fmt->second) != kSelectionFormat) {
    throw DataError("'" + path + "' is a selection store of format '" + data::attribute_text(fmt->second) + "', expected '" +
                    kSelectionFormat + "'");
  }
  return rd;
}

std::vector<std::string> index_of(const StoreReader& rd) {
  if (!rd.has_group("/index")) return {};  // no set had a winner
  return rd.read_group("/index").column("set").str();
}

// Row `i` of a table as attributes (column name -> value).
data::Attributes row_attributes(const data::MeasurementTable& t, std::size_t row) {
  data::Attributes a;
  for (const auto& c : t.columns()) {
    switch (c.type()) {
      case data::ColumnType::float64: a[c.name()] = c.f64()[row]; break;
      case data::ColumnType::int64: a[c.name()] = c.i64()[row]; break;
      case data::ColumnType::string: a[c.name()] = c.str()[row]; break;
    }
  }
  return a;
}


RowRange part_range(const data::Attributes& a, const std::string& part) {
  const auto first = static_cast<std::size_t>(std::get<std::int64_t>(a.at(part + "_first")));
  return {first, first + static_cast<std::size_t>(std::get<std::int64_t>(a.at(part + "_count")))};
}

// A winner from its /winners row and its rows of /params, /ranges, /history: `whole`, the
// tables are the whole groups and its rows are picked by its offsets; else they hold its
// rows alone.
ResultFile assemble(const data::Attributes& a, const std::string& where, const data::MeasurementTable& params,
                    const data::MeasurementTable& ranges, const std::vector<double>& history, bool whole) {
  ResultFile r = result_from_attributes(a, where);
  const RowRange p = part_range(a, "params"), g = part_range(a, "ranges"), h = part_range(a, "history");
  r.params = whole ? params_from_table(params, p.begin, p.end) : params_from_table(params);
  r.ranges = whole ? ranges_from_table(ranges, g.begin, g.end) : ranges_from_table(ranges);
  if (whole) {
    r.history.assign(history.begin() + static_cast<std::ptrdiff_t>(std::min(h.begin, history.size())),
                     history.begin() + static_cast<std::ptrdiff_t>(std::min(h.end, history.size())));
  } else {
    r.history = history;
  }
  std::vector<double> m;
  for (const char* name : kMetricNames) m.push_back(std::get<double>(a.at(name)));
  r.metrics = {m[0], m[1], m[2], m[3], m[4]};
  return r;
}

}  // namespace

std::vector<std::string> selection_sets(const std::string& path) { return index_of(open_selection(path)); }

ResultFile read_selection_result(const std::string& path, const std::string& set) {
  const StoreReader rd = open_selection(path);
  const std::vector<std::string> sets = index_of(rd);
  const auto it = std::lower_bound(sets.begin(), sets.end(), set);
  if (it == sets.end() || *it != set) {
    std::string some;
    for (std::size_t i = 0; i < std::min<std::size_t>(sets.size(), 3); ++i) some += (i ? ", " : "") + sets[i];
    throw DataError("'" + path + "' holds no winner for set '" + set + "' (its selection failed, or the glob did not "
                    "match it; the summary beside it says which); it holds " + std::to_string(sets.size()) +
                    " set(s)" + (some.empty() ? std::string() : ", e.g. " + some));
  }
  const auto k = static_cast<std::size_t>(it - sets.begin());
  const data::Attributes a = row_attributes(rd.read_group("/winners", {k, k + 1}), 0);
  return assemble(a, "'" + path + "' set '" + set + "'", rd.read_group("/params", part_range(a, "params")),
                  rd.read_group("/ranges", part_range(a, "ranges")),
                  rd.read_group("/history", part_range(a, "history")).column("best_cost").f64(), false);
}

std::vector<ResultFile> read_selection_winners(const std::string& path) {
  const StoreReader rd = open_selection(path);
  if (!rd.has_group("/index")) return {};
  const data::MeasurementTable w = rd.read_group("/winners"), params = rd.read_group("/params"),
                               ranges = rd.read_group("/ranges");
  const std::vector<double> history = rd.read_group("/history").column("best_cost").f64();
  std::vector<ResultFile> out;
  for (std::size_t k = 0; k < w.rows(); ++k) {
    const data::Attributes a = row_attributes(w, k);
    out.push_back(assemble(a, "'" + path + "' /winners row " + std::to_string(k), params, ranges, history, true));
  }
  return out;
}

ResultFile read_result(const std::string& path, const std::string& set) {
  if (detect_file_kind(path) == FileKind::selection) {
    if (set.empty()) {
      const std::vector<std::string> sets = selection_sets(path);
      throw DataError("'" + path + "' is a selection store holding the winners of " + std::to_string(sets.size()) +
                      " set(s); pass --set NAME to read one" + (sets.empty() ? std::string() : " (e.g. --set " + sets.front() + ")"));
    }
    return read_selection_result(path, set);
  }
  ResultFile r = read_result_file(path);
  if (!set.empty() && set != r.set) {
    throw DataError("'" + path + "' is the result of set '" + r.set + "', not '" + set +
                    "'; --set chooses a set in a selection store (select --set GLOB --out DIR writes DIR/selection.h5)");
  }
  return r;
}

}  // namespace perfit::io
