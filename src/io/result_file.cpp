#include "perfit/io/result_file.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <type_traits>
#include <utility>

#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "result_candidates.hpp"

namespace perfit::io {

using data::Column;

namespace detail {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) {
    if (!s.empty()) s += '\n';
    s += l;
  }
  return s;
}

const std::vector<std::pair<std::string, const ResultField*>>& result_fields_by_key() {
  static const auto sorted = [] {
    std::vector<std::pair<std::string, const ResultField*>> t;
    for (const ResultField& f : result_fields()) t.emplace_back(f.key, &f);
    t.emplace_back("warnings", nullptr);
    std::sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return t;
  }();
  return sorted;
}

}  // namespace detail

using detail::join_lines;

const std::vector<ResultField>& result_fields() {
  using R = ResultFile;
  static const std::vector<ResultField> t = {
      {"model", &R::model_name, false, "the model's name"},
      {"model_yaml", &R::model_yaml, false,
       "the model as fitted (YAML: expression, params, bounds)"},
      {"config_yaml", &R::config_yaml, false, "every option as run (YAML; --config reads it)"},
      {"data_file", &R::data_file, false, "the store, as given to --data"},
      {"set", &R::set, false, "the set fitted"},
      {"data_checksum", &R::data_checksum, false, "the set's checksum at import"},
      {"target", &R::target, false, "the column fitted"},
      {"unit", &R::unit, false, "its unit"},
      {"rows", &R::rows, false, "rows fitted"},
      {"rows_dropped", &R::rows_dropped, true, "rows with NaN or inf dropped (drop_invalid)"},
      {"seed", &R::seed, false, "the seed (same seed, options and data: the same result)"},
      {"cost", &R::cost, false, "the final cost"},
      {"cost_before_polish", &R::cost_before_polish, false, "the DE's best cost"},
      {"polish_improved", &R::polish_improved, false, "whether the LM polish lowered it"},
      {"stop_reason", &R::stop_reason, false, "why the search stopped"},
      {"stop_message", &R::stop_message, false, "the same in words"},
      {"generations", &R::generations, false, "DE generations"},
      {"evaluations", &R::evaluations, false, "cost evaluations, all islands"},
      {"seconds", &R::seconds, false, "the whole fit, wall time"},
      {"de_seconds", &R::de_seconds, true, "of which the DE"},
      {"migration_seconds", &R::migration_seconds, true, "of the DE, rank 0 in migration"},
      {"vote_seconds", &R::vote_seconds, true, "of the DE, rank 0 in the stop vote"},
      {"reduce_seconds", &R::reduce_seconds, true, "of the DE, rank 0 in the row-shard allreduce"},
      {"peak_rss_mib", &R::peak_rss_mib, true, "the largest peak resident memory of any rank"},
      {"ranks", &R::ranks, false, "MPI ranks of the job"},
      {"lambda", &R::lambda, true, "the regularisation weight used"},
      {"lambda_split", &R::lambda_split, true,
       "lambda: auto's cross-validation (empty: fixed lambda)"},
      {"bootstrap_requested", &R::bootstrap_requested, true, "--bootstrap refits asked for"},
      {"bootstrap_resampled", &R::bootstrap_resampled, true, "by configuration or by row"},
      {"ci", &R::ci, true, "level of the bootstrap intervals"},
      {"noise_log_sd", &R::noise_log_sd, true,
       "spread of ln(measured/predicted) over the rows (noise and misfit)"},
      {"noise_dof", &R::noise_dof, true, "its degrees of freedom: rows - params (0: unknown)"},
      {"choice_log_sd", &R::choice_log_sd, true,
       "select: rms ln(predicted/measured) of the chosen procedure on held-out scales"},
      {"choice_dof", &R::choice_dof, true, "select: held-out scales (folds) behind it (0: none)"},
      {"choice_how", &R::choice_how, true, "select: the validation that measured it"},
      {"choice_step_log", &R::choice_step_log, true,
       "select: ln of the step of the scale column it was measured at"},
      {"choice_growth", &R::choice_growth, true,
       "select: its growth with the distance in steps (sd x steps^growth)"},
      {"group_by", &R::group_by, true,
       "fit --by: the columns that split the rows into groups (empty: one set)"},
      {"group_labels", &R::group_labels, true,
       "fit --by: each group's label, one per line (group 1 first)"},
      {"group_per_group", &R::group_per_group, true,
       "fit --by: the constants with a copy per group (the rest are shared)"},
      {"group_pooled", &R::group_pooled, true,
       "fit --by: of those, the ones drawn toward their common value"},
      {"pool_strengths", &R::pool_strengths, true,
       "fit --by: how strongly each (0: independent per group)"},
      {"pool_how", &R::pool_how, true, "fit --by: how that strength was chosen"},
      {"rows_kept_stride", &R::kept_stride, true,
       "/rows holds every k-th fitted row (0: no /rows)"},
      {"data_file_from_result", &R::data_file_from_result, true,
       "the store, relative to the result's directory"},
      {"perfit_version", &R::perfit_version, false, "the perfit that wrote it"},
      {"git_revision", &R::git_revision, false, "its git revision"},
      {"created_utc", &R::created_utc, false, "when"},
  };
  return t;
}

data::MeasurementTable ranges_table(const std::vector<MeasuredRange>& ranges) {
  std::vector<std::string> names;
  std::vector<double> lo, hi;
  for (const auto& m : ranges) {
    names.push_back(m.name);
    lo.push_back(m.lo);
    hi.push_back(m.hi);
  }
  data::MeasurementTable t;
  t.add_column(data::Column("name", names));
  t.add_column(data::Column("min", lo));
  t.add_column(data::Column("max", hi));
  return t;
}

std::vector<MeasuredRange> ranges_from_table(const data::MeasurementTable& g, std::size_t begin,
                                             std::size_t end) {
  std::vector<MeasuredRange> out;
  for (std::size_t i = begin; i < std::min(end, g.rows()); ++i) {
    out.push_back({g.column("name").str()[i], g.column("min").f64()[i], g.column("max").f64()[i]});
  }
  return out;
}

data::MeasurementTable params_table(const std::vector<ResultParam>& ps, bool with_ci) {
  std::vector<std::string> names;
  std::vector<double> value, lo, hi, past_bound, ci_lo, ci_hi;
  std::vector<std::int64_t> log_scale, at_bound, identifiable, linear;
  names.reserve(ps.size());
  for (const auto& p : ps) {
    names.push_back(p.name);
    past_bound.push_back(p.past_bound);
    value.push_back(p.value);
    lo.push_back(p.lo);
    hi.push_back(p.hi);
    log_scale.push_back(p.log_scale);
    at_bound.push_back(p.at_bound);
    identifiable.push_back(p.identifiable);
    linear.push_back(p.linear);
    ci_lo.push_back(p.ci_lo);
    ci_hi.push_back(p.ci_hi);
  }
  data::MeasurementTable params;
  params.add_column(Column("name", std::move(names)));
  params.add_column(Column("value", std::move(value)));
  params.add_column(Column("lo", std::move(lo)));
  params.add_column(Column("hi", std::move(hi)));
  params.add_column(Column("log_scale", std::move(log_scale)));
  params.add_column(Column("at_bound", std::move(at_bound)));
  params.add_column(Column("identifiable", std::move(identifiable)));
  params.add_column(Column("linear", std::move(linear)));
  params.add_column(Column("past_bound", std::move(past_bound)));
  if (with_ci) {
    params.add_column(Column("ci_lo", std::move(ci_lo)));
    params.add_column(Column("ci_hi", std::move(ci_hi)));
  }
  return params;
}

std::vector<ResultParam> params_from_table(const data::MeasurementTable& p, std::size_t begin,
                                           std::size_t end) {
  std::vector<ResultParam> out;
  for (std::size_t i = begin; i < std::min(end, p.rows()); ++i) {
    ResultParam q;
    q.name = p.column("name").str()[i];
    q.value = p.column("value").f64()[i];
    q.lo = p.column("lo").f64()[i];
    q.hi = p.column("hi").f64()[i];
    q.log_scale = p.column("log_scale").i64()[i] != 0;
    q.at_bound = p.column("at_bound").i64()[i] != 0;
    q.identifiable = !p.find("identifiable") || p.column("identifiable").i64()[i] != 0;
    q.linear = p.find("linear") && p.column("linear").i64()[i] != 0;
    if (p.find("past_bound")) q.past_bound = p.column("past_bound").f64()[i];
    if (p.find("ci_lo")) {
      q.ci_lo = p.column("ci_lo").f64()[i];
      q.ci_hi = p.column("ci_hi").f64()[i];
    }
    out.push_back(q);
  }
  return out;
}

data::Attributes result_attributes(const ResultFile& r) {
  data::Attributes a;
  each_result_attribute(r, [&](const std::string& key, const auto& v) { a.emplace(key, v); });
  return a;
}

void write_result_file(const std::string& path, const ResultFile& r) {
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    w.write_root_attribute("perfit_result", std::string(kResultFormat));
    for (const auto& [key, value] : result_attributes(r)) w.write_root_attribute(key, value);
    if (r.has_bootstrap()) {
      data::MeasurementTable reps;
      for (std::size_t k = 0; k < r.params.size(); ++k)
        reps.add_column(Column(r.params[k].name, r.bootstrap[k]));
      w.write_group("/bootstrap", reps);
    }
    w.write_group("/params", params_table(r.params, r.has_bootstrap()));

    if (!r.ranges.empty()) w.write_group("/ranges", ranges_table(r.ranges));
    if (r.kept_rows.cols() > 0) w.write_group("/rows", r.kept_rows);
    if (!r.candidates.empty()) w.write_group("/candidates", detail::candidates_table(r.candidates));

    data::MeasurementTable history;
    history.add_column(Column("best_cost", r.history));
    w.write_group("/history", history);

    if (!r.lambda_grid.empty()) {
      data::MeasurementTable curve;
      curve.add_column(Column("lambda", r.lambda_grid));
      curve.add_column(Column("held_out_cost", r.lambda_scores));
      w.write_group("/lambda_curve", curve);
    }

    data::MeasurementTable metrics;
    metrics.add_column(
        Column("name", std::vector<std::string>{"mape", "rmse", "r2", "gmae", "max_rel_err"}));
    metrics.add_column(
        Column("value", std::vector<double>{r.metrics.mape, r.metrics.rmse, r.metrics.r2,
                                            r.metrics.gmae, r.metrics.max_rel_err}));
    w.write_group("/metrics", metrics);
    w.close();
  });
}

namespace {

std::string need_string(const data::Attributes& a, const std::string& key,
                        const std::string& path) {
  auto it = a.find(key);
  if (it == a.end()) {
    throw DataError("'" + path + "' is not a complete perfit result: attribute '" + key +
                    "' is missing. Re-run `perfit fit`");
  }
  return data::attribute_text(it->second);
}
double need_number(const data::Attributes& a, const std::string& key, const std::string& path) {
  auto it = a.find(key);
  if (it == a.end()) {
    throw DataError("'" + path + "' is not a complete perfit result: attribute '" + key +
                    "' is missing");
  }
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  throw DataError("'" + path + "' attribute '" + key + "' is text, expected a number");
}

}  // namespace

ResultFile result_from_attributes(const data::Attributes& a, const std::string& path) {
  ResultFile r;
  for (const ResultField& f : result_fields()) {
    if (f.optional && !a.count(f.key)) continue;
    std::visit(
        [&](auto member) {
          auto& v = r.*member;
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            v = need_string(a, f.key, path);
          } else if constexpr (std::is_same_v<T, bool>) {
            v = need_number(a, f.key, path) != 0;
          } else if constexpr (std::is_same_v<T, double>) {
            v = need_number(a, f.key, path);
          } else if (const auto* i = std::get_if<std::int64_t>(&a.at(f.key))) {
            v = static_cast<T>(*i);  // whole numbers as written, all 64 bits of a seed included
          } else {
            v = static_cast<T>(need_number(a, f.key, path));
          }
        },
        f.member);
  }
  if (a.count("warnings")) {
    std::stringstream ws(data::attribute_text(a.at("warnings")));
    for (std::string line; std::getline(ws, line);) r.warnings.push_back(line);
  }
  return r;
}

ResultFile read_result_file(const std::string& path) {
  std::error_code ec;
  // Before HDF5 parses anything: a damaged file is refused, never read as valid.
  if (std::filesystem::is_regular_file(path, ec)) verify_seal(path, "result file");
  const FileKind kind = detect_file_kind(path);
  if (kind == FileKind::none) {
    throw IoError("result file '" + path + "' does not exist; `perfit fit ... --out " + path +
                  "` writes one");
  }
  if (kind != FileKind::result && kind != FileKind::hdf5) {
    throw DataError("'" + path + "' is " + describe(kind) +
                    ", not a perfit result; pass the "
                    "file `perfit fit --out` wrote");
  }
  StoreReader rd(path);
  const data::Attributes a = rd.root_attributes();
  auto fmt = a.find("perfit_result");
  if (fmt == a.end()) {
    throw DataError("'" + path +
                    "' is an HDF5 file but not a perfit result (no 'perfit_result' "
                    "attribute). Pass the file `perfit fit --out` wrote");
  }
  if (data::attribute_text(fmt->second) != kResultFormat) {
    throw DataError("'" + path + "' is a result of format '" + data::attribute_text(fmt->second) +
                    "', expected '" + kResultFormat + "'");
  }
  ResultFile r = result_from_attributes(a, path);
  try {  // every reader of a result builds its model from this text: refused here, in one place
    (void)parse_model_yaml(r.model_yaml, "model_yaml");
  } catch (const Error& e) {
    throw DataError("'" + path + "' holds a model perfit cannot read (" + e.what() +
                    "); it was changed since perfit wrote it: fit again");
  }
  const data::MeasurementTable p = rd.read_group("/params");
  r.params = params_from_table(p);
  r.history = rd.read_group("/history").column("best_cost").f64();
  if (rd.has_group("/ranges")) r.ranges = ranges_from_table(rd.read_group("/ranges"));
  if (rd.has_group("/candidates"))
    r.candidates = detail::candidates_from_table(rd.read_group("/candidates"), path);
  if (rd.has_group("/rows")) {
    r.kept_rows = rd.read_group("/rows");
    r.kept_rows.attributes().clear();
  }
  if (p.find("ci_lo")) {
    const data::MeasurementTable reps = rd.read_group("/bootstrap");
    for (const auto& q : r.params) r.bootstrap.push_back(reps.column(q.name).f64());
  }
  if (!r.lambda_split.empty()) {
    const data::MeasurementTable curve = rd.read_group("/lambda_curve");
    r.lambda_grid = curve.column("lambda").f64();
    r.lambda_scores = curve.column("held_out_cost").f64();
  }
  const data::MeasurementTable m = rd.read_group("/metrics");
  const auto& v = m.column("value").f64();
  if (v.size() == 5) r.metrics = {v[0], v[1], v[2], v[3], v[4]};
  return r;
}

}  // namespace perfit::io
