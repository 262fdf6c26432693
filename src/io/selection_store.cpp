#include "perfit/io/selection_store.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>

#include "perfit/core/cpu_affinity.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "perfit/io/winner_configs.hpp"
#include "perfit/io/winner_record.hpp"

namespace perfit::io {

namespace {

using data::Column;

// Rows of /winners held at once while writing: whole chunks of its numbers and text.
constexpr std::size_t kWinnersBlock = kGroupChunkRows;
static_assert(kWinnersBlock % kPackChunkRows == 0);

// The order of the winners' sets, checked as they come.
void check_order(const std::vector<std::string>& sets, const std::string& set) {
  if (!sets.empty() && set <= sets.back()) {
    throw ConfigError(set == sets.back()
                          ? "two winners for set '" + set + "'"
                          : "winners out of set order: '" + set + "' after '" + sets.back() + "'");
  }
}

}  // namespace

void write_selection_store(const std::string& path, std::vector<const ResultFile*> winners,
                           const data::Attributes& about) {
  std::sort(winners.begin(), winners.end(),
            [](const ResultFile* a, const ResultFile* b) { return a->set < b->set; });
  std::vector<std::string> records;
  std::map<std::string, std::size_t> widths;
  for (const ResultFile* w : winners) {
    records.push_back(winner_record(*w));
    widen_to_record(records.back(), &widths);
  }
  write_selection_store(
      path, records.size(),
      [&](std::size_t i, std::string&) { return std::string_view(records[i]); }, about, widths);
}

void write_selection_store(const std::string& path, std::size_t n, const WinnerRecords& record,
                           const data::Attributes& about,
                           const std::map<std::string, std::size_t>& text_widths,
                           const std::vector<WinnerConfigs::Entry>* named) {
  // Each winner decoded from its record straight into columns, /winners written block by block
  // (10^5 winners of a few KB each held as columns were half of rank 0's memory).
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
    // Each block's records decoded on every CPU as they are read (from a selection's journal,
    // through a window per thread), then deflated on every CPU and written.
    WinnerColumns columns(text_widths, "'" + path + "' /winners", n, named);
    WorkerPool threads(unbound_cpus(), true);
    std::vector<std::string> sets;
    sets.reserve(n);
    std::optional<GroupWriter> winners;
    for (std::size_t begin = 0; begin < n; begin += kWinnersBlock) {
      const std::size_t rows = std::min(kWinnersBlock, n - begin);
      columns.decode(begin, rows, record, threads);
      for (std::size_t r = 0; r < rows; ++r) {
        std::string set = columns.set(r);
        check_order(sets, set);
        sets.push_back(std::move(set));
      }
      // Below kChunkThresholdRows rows text is variable-length and the widths go unused.
      if (!winners) winners.emplace(w.stream_group("/winners", columns.shape(), n));
      winners->write_bytes(begin, rows, columns.block());
    }
    winners.reset();  // its datasets closed before the file is: the seal covers every byte
    data::MeasurementTable index;
    index.add_column(Column("set", std::move(sets)));
    w.write_group("/index", index);
    w.write_group("/params", columns.take_params());
    w.write_group("/ranges", columns.take_ranges());
    data::MeasurementTable h;
    h.add_column(Column("best_cost", columns.take_history()));
    w.write_group("/history", h);
    w.write_group("/configs", columns.configs());
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
  if (fmt == a.end())
    throw DataError("'" + path +
                    "' is not a perfit selection store (no 'perfit_selection' attribute)");
  const std::string format = data::attribute_text(fmt->second);
  if (format != kSelectionFormat && format != kSelectionFormatPerWinnerConfig) {
    throw DataError("'" + path + "' is a selection store of format '" + format + "', expected '" +
                    kSelectionFormat + "' (or '" + kSelectionFormatPerWinnerConfig + "')");
  }
  return rd;
}

// The distinct run configurations; none in stores that keep a configuration per winner.
WinnerConfigs configs_of(const StoreReader& rd, const std::string& path) {
  if (!rd.has_group("/configs")) return {};
  return WinnerConfigs(rd.read_group("/configs"), "'" + path + "' /configs");
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
      case data::ColumnType::float64:
        a[c.name()] = c.f64()[row];
        break;
      case data::ColumnType::int64:
        a[c.name()] = c.i64()[row];
        break;
      case data::ColumnType::string:
        a[c.name()] = c.str()[row];
        break;
    }
  }
  return a;
}

RowRange part_range(const data::Attributes& a, const std::string& part) {
  const auto first = static_cast<std::size_t>(std::get<std::int64_t>(a.at(part + "_first")));
  return {first, first + static_cast<std::size_t>(std::get<std::int64_t>(a.at(part + "_count")))};
}

// The first row each table holds: a winner's rows of /params, /ranges and /history are picked
// from tables that hold that group from these rows on.
struct Firsts {
  std::size_t params = 0, ranges = 0, history = 0;
};

std::pair<std::size_t, std::size_t> relative(const RowRange& r, std::size_t first) {
  return {r.begin - std::min(r.begin, first), r.end - std::min(r.end, first)};
}

// A winner from its /winners row and its rows of /params, /ranges, /history.
ResultFile assemble(data::Attributes a, const std::string& where, const WinnerConfigs& configs,
                    const data::MeasurementTable& params, const data::MeasurementTable& ranges,
                    const std::vector<double>& history, const Firsts& firsts) {
  if (const auto i = a.find("config_index"); i != a.end()) {
    const auto* row = std::get_if<std::int64_t>(&i->second);
    const auto s = a.find("set");
    const auto* set = s == a.end() ? nullptr : std::get_if<std::string>(&s->second);
    if (row == nullptr || set == nullptr)
      throw DataError(where + ": config_index or set is not of its type (integer, text)");
    a["config_yaml"] = configs.config(*row, *set, where);
    a.erase("config_index");
  }
  ResultFile r = result_from_attributes(a, where);
  const auto p = relative(part_range(a, "params"), firsts.params),
             g = relative(part_range(a, "ranges"), firsts.ranges),
             h = relative(part_range(a, "history"), firsts.history);
  r.params = params_from_table(params, p.first, p.second);
  r.ranges = ranges_from_table(ranges, g.first, g.second);
  r.history.assign(
      history.begin() + static_cast<std::ptrdiff_t>(std::min(h.first, history.size())),
      history.begin() + static_cast<std::ptrdiff_t>(std::min(h.second, history.size())));
  std::vector<double> m;
  for (const char* name : kWinnerMetrics) m.push_back(std::get<double>(a.at(name)));
  r.metrics = {m[0], m[1], m[2], m[3], m[4]};
  return r;
}

// The rows of `part` that a block of /winners spans: from the first first to the last end.
RowRange spanned(const data::MeasurementTable& winners, const std::string& part) {
  const auto& first = winners.column(part + "_first").i64();
  const auto& count = winners.column(part + "_count").i64();
  RowRange span{std::numeric_limits<std::size_t>::max(), 0};
  for (std::size_t k = 0; k < first.size(); ++k) {
    const auto begin = static_cast<std::size_t>(first[k]);
    span = {std::min(span.begin, begin),
            std::max(span.end, begin + static_cast<std::size_t>(count[k]))};
  }
  return span;
}

}  // namespace

std::vector<std::string> selection_sets(const std::string& path) {
  return index_of(open_selection(path));
}

ResultFile read_selection_result(const std::string& path, const std::string& set) {
  const StoreReader rd = open_selection(path);
  const std::vector<std::string> sets = index_of(rd);
  const auto it = std::lower_bound(sets.begin(), sets.end(), set);
  if (it == sets.end() || *it != set) {
    std::string some;
    for (std::size_t i = 0; i < std::min<std::size_t>(sets.size(), 3); ++i)
      some += (i ? ", " : "") + sets[i];
    throw DataError("'" + path + "' holds no winner for set '" + set +
                    "' (its selection failed, or the glob did not "
                    "match it; the summary beside it says which); it holds " +
                    std::to_string(sets.size()) + " set(s)" +
                    (some.empty() ? std::string() : ", e.g. " + some));
  }
  const auto k = static_cast<std::size_t>(it - sets.begin());
  const data::Attributes a = row_attributes(rd.read_group("/winners", {k, k + 1}), 0);
  const RowRange p = part_range(a, "params"), g = part_range(a, "ranges"),
                 h = part_range(a, "history");
  return assemble(a, "'" + path + "' set '" + set + "'", configs_of(rd, path),
                  rd.read_group("/params", p), rd.read_group("/ranges", g),
                  rd.read_group("/history", h).column("best_cost").f64(),
                  {p.begin, g.begin, h.begin});
}

void for_each_selection_winner(const std::string& path,
                               const std::function<void(ResultFile&&)>& each) {
  const StoreReader rd = open_selection(path);
  if (!rd.has_group("/index")) return;
  const WinnerConfigs configs = configs_of(rd, path);
  // Whole numeric chunks at a time (kChunkRows: 65,536 rows, a multiple of the group's chunk,
  // and of the larger chunks that stores written before 2026-12-06 have): each read opens the
  // datasets again with empty chunk caches, and a read inside a chunk inflates it whole.
  for (std::size_t first = 0;; first += kChunkRows) {
    const data::MeasurementTable w = rd.read_group("/winners", {first, first + kChunkRows});
    if (w.rows() == 0) return;
    const RowRange p = spanned(w, "params"), g = spanned(w, "ranges"), h = spanned(w, "history");
    const data::MeasurementTable params = rd.read_group("/params", p),
                                 ranges = rd.read_group("/ranges", g);
    const std::vector<double> history = rd.read_group("/history", h).column("best_cost").f64();
    for (std::size_t k = 0; k < w.rows(); ++k) {
      each(assemble(row_attributes(w, k),
                    "'" + path + "' /winners row " + std::to_string(first + k), configs, params,
                    ranges, history, {p.begin, g.begin, h.begin}));
    }
    if (w.rows() < kChunkRows) return;
  }
}

ResultFile read_result(const std::string& path, const std::string& set) {
  if (detect_file_kind(path) == FileKind::selection) {
    if (set.empty()) {
      const std::vector<std::string> sets = selection_sets(path);
      throw DataError("'" + path + "' is a selection store holding the winners of " +
                      std::to_string(sets.size()) + " set(s); pass --set NAME to read one" +
                      (sets.empty() ? std::string() : " (e.g. --set " + sets.front() + ")"));
    }
    return read_selection_result(path, set);
  }
  ResultFile r = read_result_file(path);
  if (!set.empty() && set != r.set) {
    throw DataError("'" + path + "' is the result of set '" + r.set + "', not '" + set +
                    "'; --set chooses a set in a selection store (select --set GLOB --out DIR "
                    "writes DIR/selection.h5)");
  }
  return r;
}

}  // namespace perfit::io
