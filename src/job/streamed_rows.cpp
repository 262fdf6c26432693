#include "streamed_rows.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>

#include "perfit/core/error.hpp"

namespace perfit::job {

namespace {

// Rows read at a time: two of a store's HDF5 chunks. Buffers this small are reused by malloc
// instead of being mapped afresh each time (4*10^6 rows: 0.42 s against 0.52 s in chunks of
// 2^20, a third of the page faults).
constexpr std::size_t kReadRows = std::size_t{1} << 17;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The evaluator's checks of a target and a weight, per chunk, naming the row of the set.
std::string first_bad_row(const FitSetup& s, const data::MeasurementTable& chunk,
                          const std::function<std::size_t(std::size_t)>& row_of) {
  const auto bad = [&](const std::string& column, bool target) -> std::string {
    if (column.empty() || !chunk.find(column)) return "";
    const data::Column& c = chunk.column(column);
    std::vector<double> converted;
    if (c.type() != data::ColumnType::float64) converted = c.to_double();
    const std::vector<double>& v = converted.empty() ? c.f64() : converted;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const bool ok = std::isfinite(v[i]) && (target ? v[i] > 0.0 : v[i] >= 0.0);
      if (ok) continue;
      return "'" + s.cfg.data + "' set '" + s.cfg.set + "': " + (target ? "target" : "weight") +
             " column '" + column + "' row " + std::to_string(row_of(i)) + " is " +
             std::to_string(v[i]) +
             (target ? "; measured times must be finite and > 0 (re-import with --drop-invalid)"
                     : "; weights must be finite and >= 0");
    }
    return "";
  };
  std::string e = bad(s.target, true);
  return e.empty() ? bad(s.cfg.cost.weight_column, false) : e;
}

void add_counts(data::RowValidity& total, const data::RowValidity& v) {
  if (total.columns.empty()) {
    total.columns = v.columns;
    total.invalid.assign(v.invalid.size(), 0);
  }
  for (std::size_t i = 0; i < v.invalid.size(); ++i) total.invalid[i] += v.invalid[i];
  total.rows_invalid += v.rows_invalid;
}

// Rows as a fit reads them: one pass over [first, second), every `stride`-th row kept.
// False: the configurations outgrew stream_rows before the end (rows mostly distinct).
bool read_pass(const FitSetup& s, std::pair<std::size_t, std::size_t> slice, bool progress,
               model::Compressor& into, StreamedSlice& out, bool may_outgrow) {
  const fit::RunConfig& c = s.cfg;
  const std::size_t chunk = std::min(c.stream_rows, kReadRows), total = slice.second - slice.first;
  const auto t0 = std::chrono::steady_clock::now();
  double next_line = 5.0;
  // Reads end on multiples of `chunk` rows, as the store's chunks do: a rank whose slice starts
  // inside a chunk would otherwise inflate a chunk twice for every read.
  for (std::size_t b = slice.first, e = 0; b < slice.second; b = e) {
    e = std::min(slice.second, (b / chunk + 1) * chunk);
    data::MeasurementTable t = s.store->read(c.set, s.read, io::RowRange{b, e}, true);
    std::vector<std::size_t> row_of;  // the set's row of each row of t; empty: b + i
    const auto keep_rows = [&](const std::vector<bool>& keep) {
      if (row_of.empty()) {
        row_of.resize(t.rows());
        std::iota(row_of.begin(), row_of.end(), b);
      }
      t.filter_rows(keep);
      std::size_t k = 0;
      for (std::size_t i = 0; i < keep.size(); ++i)
        if (keep[i]) row_of[k++] = row_of[i];
      row_of.resize(k);
    };
    if (out.stride > 1) {
      std::vector<bool> keep(t.rows());
      for (std::size_t i = 0; i < keep.size(); ++i)
        keep[i] = (b + i - slice.first) % out.stride == 0;
      keep_rows(keep);
    }
    const data::RowValidity v = data::check_rows(t, s.load);
    add_counts(out.invalid, v);
    if (v.rows_invalid > 0) {
      if (!c.drop_invalid) return true;  // refused by the caller, with the counts so far
      keep_rows(v.keep);
    }
    out.error =
        first_bad_row(s, t, [&](std::size_t i) { return row_of.empty() ? b + i : row_of[i]; });
    if (!out.error.empty()) return true;
    into.add(t);
    if (may_outgrow && into.configurations() > c.stream_rows) return false;
    const double took = seconds_since(t0);
    if (progress && took >= next_line) {
      next_line = took + 5.0;
      spdlog::info("read {} of {} rows ({:.0f}%), {:.1f} M rows/s, {} distinct configurations",
                   e - slice.first, total, 100.0 * static_cast<double>(e - slice.first) / total,
                   static_cast<double>(e - slice.first) / took / 1e6, into.configurations());
    }
  }
  return true;
}

}  // namespace

bool streams(const FitSetup& s, std::pair<std::size_t, std::size_t> slice) {
  const fit::RunConfig& c = s.cfg;
  return !s.given && s.joint.empty() && c.compress && c.cost.residual != model::Residual::ape &&
         c.stream_rows > 0 && slice.second - slice.first > c.stream_rows;
}

model::CostOptions streamed_cost(model::CostOptions cost) {
  cost.weight_column = model::kCompressedWeight;
  return cost;
}

StreamedSlice stream_slice(const FitSetup& s, std::pair<std::size_t, std::size_t> slice,
                           bool progress) {
  const fit::RunConfig& c = s.cfg;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> factors = s.model->columns_used();
  StreamedSlice out;
  auto compressor = std::make_unique<model::Compressor>(factors, c.cost, true);
  if (!read_pass(s, slice, progress, *compressor, out, true)) {
    // Rows mostly distinct: compressing saves nothing and every row would stay in memory.
    const std::size_t n = slice.second - slice.first;
    const std::string why = "the rows are mostly distinct (" +
                            std::to_string(compressor->configurations()) +
                            " configurations in the first " + std::to_string(compressor->rows()) +
                            " rows read), so compressing saves nothing";
    if (n <= kWholeShares * c.stream_rows) {
      spdlog::info("{}: reading these {} rows into memory", why, n);
      StreamedSlice whole;
      whole.in_memory = true;
      return whole;
    }
    out.stride = (n + c.stream_rows - 1) / c.stream_rows;
    out.sampled = why + ": the fit used every " + std::to_string(out.stride) + "th row, " +
                  std::to_string(n / out.stride) + " of " + std::to_string(n) +
                  " (stream_rows: raise it to fit more rows in memory, 0 to read them all)";
    spdlog::warn("{}", out.sampled);
    out.invalid = {};
    compressor = std::make_unique<model::Compressor>(factors, c.cost, true);
    read_pass(s, slice, progress, *compressor, out, false);
  }
  out.rows =
      std::make_shared<model::CompressedRows>(compressor->finish(s.target, s.info.attributes));
  const double took = seconds_since(t0);
  if (progress) {
    spdlog::info(
        "read {} rows in {:.2f} s ({:.1f} M rows/s) in chunks of {}: {} distinct "
        "configurations kept",
        slice.second - slice.first, took,
        static_cast<double>(slice.second - slice.first) / took / 1e6,
        std::min(c.stream_rows, kReadRows), out.rows->configurations);
  }
  return out;
}

}  // namespace perfit::job
