// The result of a fit as an HDF5 file (docs/result-format.md): fitted params with bounds, the
// model (as YAML, so `perfit predict` needs nothing else), cost history, metrics, the config as
// run, and provenance (perfit version, git revision, seed, data file, set, data checksum).
// Written to a temporary name and renamed.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/fit_summary.hpp"

namespace perfit::io {

inline constexpr const char* kResultFormat = "perfit-result-1";

struct ResultParam {
  std::string name;
  double value = 0.0, lo = 0.0, hi = 0.0;
  bool log_scale = false, at_bound = false;
  bool identifiable = true;         // false: the data cannot pin it down (see warnings)
  bool linear = false;              // solved by least squares for each candidate (separable: auto)
  double ci_lo = 0.0, ci_hi = 0.0;  // --bootstrap: the percentile interval (else unset)
  // At a bound: the relative cost change with it moved past the bound (< 0: the data pull it
  // further, widening can change the fit). NaN inside its bounds or in older files.
  double past_bound = std::numeric_limits<double>::quiet_NaN();
};

// The values of one factor the fit saw: a column's smallest and largest, or the one value a
// --factors binding fixed (epochs=1 -> 1..1). Predictions outside are extrapolations.
struct MeasuredRange {
  std::string name;  // as the model reads it: the column (gpus), or the fixed factor (epochs)
  double lo = 0.0, hi = 0.0;
};

// A candidate of a selection (`perfit select --out`), fitted on every row like the winner, so
// that a report can draw each candidate's curve: its rank (1: the winner), names, score, held-out
// MAPE, the model as fitted and its constants in the model's order.
struct CandidateFit {
  std::size_t rank = 0;
  std::string model, source;
  double score = 0.0, mape = 0.0;
  std::string model_yaml;
  std::vector<double> params;
};

// A fit's result: what the search found and how (model::FitSummary, the fields it shares with
// fit::FitReport) and everything needed to answer without the data.
struct ResultFile : model::FitSummary {
  std::string model_name, model_yaml, config_yaml;
  std::string data_file, set, data_checksum, target, unit;
  std::size_t rows = 0;
  std::uint64_t seed = 0;
  std::vector<ResultParam> params;
  std::string stop_reason, stop_message;
  double peak_rss_mib = 0.0;     // the largest peak resident memory of any rank
  std::size_t rows_dropped = 0;  // rows with NaN/inf dropped by drop_invalid
  // The regularisation weight the fit used; with lambda: auto also the cross-validation that
  // chose it (split "" otherwise) and its curve (held-out cost per lambda of the grid).
  double lambda = 0.0;
  std::string lambda_split;
  std::vector<double> lambda_grid, lambda_scores;
  // --bootstrap: refits asked for, how rows were resampled ("configuration" or "row"), the
  // interval level, and the finished refits' params (bootstrap[k][b]: param k, refit b).
  std::size_t bootstrap_requested = 0;
  std::string bootstrap_resampled;
  double ci = 0.0;
  std::vector<std::vector<double>> bootstrap;
  bool has_bootstrap() const { return !bootstrap.empty() && !bootstrap.front().empty(); }
  std::vector<std::string> warnings;  // what the user must know to trust the fit
  std::vector<MeasuredRange> ranges;  // every factor's; empty in files of older perfits ("unknown")
  // What a prediction interval is made of (fit/predictive.hpp): the residuals' log spread
  // (noise_log_sd, noise_dof of the summary), and, written by select, the chosen procedure's
  // log errors where it predicted held-out scales (the uncertainty of the choice; dof: folds).
  double choice_log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t choice_dof = 0;
  std::string choice_how;
  // The distance the choice part was measured at (ln of one step of the scale column) and how it
  // grows with the distance in such steps (log sd x steps^growth); NaN in older files.
  double choice_step_log = std::numeric_limits<double>::quiet_NaN();
  double choice_growth = std::numeric_limits<double>::quiet_NaN();
  std::string perfit_version, git_revision, created_utc;
  int ranks = 1;
  // The rows as fitted, so that a result answers on its own (figures, reports, another machine):
  // the group /rows (each factor column the model reads, the target, predicted, residual) holds
  // every kept_stride-th row; 0: none kept (older files, selection stores).
  data::MeasurementTable kept_rows;
  std::size_t kept_stride = 0;
  // The store relative to the result's directory, for a result moved together with its data.
  std::string data_file_from_result;
  // A joint fit of groups (fit --by, job/groups.hpp): the columns that split the rows
  // (comma-separated; empty: one set), each group's label (one per line, group 1 first) and the
  // constants with a copy per group (comma-separated; the others are shared), which appear in
  // params as c__1 .. c__G.
  std::string group_by, group_labels, group_per_group;
  // Of those with a copy per group, the pooled ones (comma-separated; in group_per_group too),
  // the strength that draws each toward its common value (comma-separated, in that order) and
  // how they were chosen.
  std::string group_pooled, pool_strengths, pool_how;
  // select --out: every candidate of the selection, the winner first (the group /candidates).
  std::vector<CandidateFit> candidates;
};

// One scalar of a result, declared once: its HDF5 root attribute (also its key in `--json`
// outputs and in `perfit show --full`), where it lives in ResultFile, and whether files written
// by older perfits may lack it (it then keeps its default). The writer, the reader, the JSON
// and the full report all walk this table; params, history, metrics, warnings, the lambda
// curve and bootstrap replicates are the groups and lists beside it.
using ResultMember = std::variant<std::string ResultFile::*, double ResultFile::*,
                                  std::size_t ResultFile::*, int ResultFile::*, bool ResultFile::*>;
struct ResultField {
  const char* key;
  ResultMember member;
  bool optional;  // absent from files of older perfits
  const char* doc;
};
const std::vector<ResultField>& result_fields();

// Throws: IoError / H5Error.
void write_result_file(const std::string& path, const ResultFile& r);
// Throws: IoError if missing; DataError if not a perfit result file (naming what is missing).
ResultFile read_result_file(const std::string& path);

// The parts of a result as attributes and tables, shared by result files (root attributes and
// groups) and selection stores (io/selection_store.hpp: one row per set).
data::Attributes result_attributes(const ResultFile& r);  // result_fields() and "warnings"
// The same attributes one at a time, in the map's (key) order, each value by reference
// (const std::string&, double or std::int64_t): for writers that need no map (a selection
// encodes a record per winner, 10^6 of them). result_attribute_count() of them.
template <class Fn>
void each_result_attribute(const ResultFile& r, Fn&& fn);
namespace detail {
// result_fields() and "warnings" (nullptr), sorted by key.
const std::vector<std::pair<std::string, const ResultField*>>& result_fields_by_key();
std::string join_lines(const std::vector<std::string>& lines);
}  // namespace detail
inline std::size_t result_attribute_count() { return detail::result_fields_by_key().size(); }
// Throws: DataError naming `where` and a missing or mistyped field.
ResultFile result_from_attributes(const data::Attributes& a, const std::string& where);
data::MeasurementTable params_table(const std::vector<ResultParam>& params, bool with_ci);
// Rows [begin, end) of the table (end clamped): one result's among many (a selection store).
std::vector<ResultParam> params_from_table(
    const data::MeasurementTable& t, std::size_t begin = 0,
    std::size_t end = std::numeric_limits<std::size_t>::max());
data::MeasurementTable ranges_table(const std::vector<MeasuredRange>& ranges);
std::vector<MeasuredRange> ranges_from_table(
    const data::MeasurementTable& t, std::size_t begin = 0,
    std::size_t end = std::numeric_limits<std::size_t>::max());

template <class Fn>
void each_result_attribute(const ResultFile& r, Fn&& fn) {
  // Not a structured binding: lambdas cannot capture those before clang 16.
  for (const auto& entry : detail::result_fields_by_key()) {
    const std::string& key = entry.first;
    const ResultField* f = entry.second;
    if (!f) {
      fn(key, detail::join_lines(r.warnings));
    } else if (f->member == ResultMember(&ResultFile::kept_stride) && r.kept_rows.cols() == 0) {
      fn(key, std::int64_t{0});  // what is written is what is said
    } else {
      std::visit(
          [&](auto member) {
            const auto& v = r.*member;
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, double>) {
              fn(key, v);
            } else {
              fn(key, static_cast<std::int64_t>(v));  // a seed keeps its 64 bits
            }
          },
          f->member);
    }
  }
}

}  // namespace perfit::io
