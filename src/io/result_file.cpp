#include "perfit/io/result_file.hpp"

#include <filesystem>

#include <sstream>

#include "perfit/core/error.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"

namespace perfit::io {

using data::Column;

namespace {
std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += (s.empty() ? "" : "\n") + l;
  return s;
}
}  // namespace

void write_result_file(const std::string& path, const ResultFile& r) {
  AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    StoreWriter w(temp, Seal::yes);
    const data::Attributes root = {
        {"perfit_result", std::string(kResultFormat)},
        {"model", r.model_name},
        {"model_yaml", r.model_yaml},
        {"config_yaml", r.config_yaml},
        {"data_file", r.data_file},
        {"set", r.set},
        {"data_checksum", r.data_checksum},
        {"target", r.target},
        {"unit", r.unit},
        {"rows", static_cast<std::int64_t>(r.rows)},
        {"seed", static_cast<std::int64_t>(r.seed)},
        {"cost", r.cost},
        {"cost_before_polish", r.cost_before_polish},
        {"polish_improved", static_cast<std::int64_t>(r.polish_improved)},
        {"stop_reason", r.stop_reason},
        {"stop_message", r.stop_message},
        {"generations", static_cast<std::int64_t>(r.generations)},
        {"evaluations", static_cast<std::int64_t>(r.evaluations)},
        {"seconds", r.seconds},
        {"de_seconds", r.de_seconds},
        {"migration_seconds", r.migration_seconds},
        {"vote_seconds", r.vote_seconds},
        {"reduce_seconds", r.reduce_seconds},
        {"peak_rss_mib", r.peak_rss_mib},
        {"rows_dropped", static_cast<std::int64_t>(r.rows_dropped)},
        {"ranks", static_cast<std::int64_t>(r.ranks)},
        {"perfit_version", r.perfit_version},
        {"git_revision", r.git_revision},
        {"created_utc", r.created_utc},
        {"warnings", join_lines(r.warnings)},
        {"lambda", r.lambda},
        {"lambda_split", r.lambda_split},
        {"bootstrap_requested", static_cast<std::int64_t>(r.bootstrap_requested)},
        {"bootstrap_resampled", r.bootstrap_resampled},
        {"ci", r.ci},
    };
    for (const auto& [k, v] : root) w.write_root_attribute(k, v);

    std::vector<std::string> names;
    std::vector<double> value, lo, hi;
    std::vector<std::int64_t> log_scale, at_bound, identifiable, linear;
    for (const auto& p : r.params) {
      names.push_back(p.name);
      value.push_back(p.value);
      lo.push_back(p.lo);
      hi.push_back(p.hi);
      log_scale.push_back(p.log_scale);
      at_bound.push_back(p.at_bound);
      identifiable.push_back(p.identifiable);
      linear.push_back(p.linear);
    }
    data::MeasurementTable params;
    params.add_column(Column("name", names));
    params.add_column(Column("value", value));
    params.add_column(Column("lo", lo));
    params.add_column(Column("hi", hi));
    params.add_column(Column("log_scale", log_scale));
    params.add_column(Column("at_bound", at_bound));
    params.add_column(Column("identifiable", identifiable));
    params.add_column(Column("linear", linear));
    if (r.has_bootstrap()) {
      std::vector<double> ci_lo, ci_hi;
      for (const auto& p : r.params) {
        ci_lo.push_back(p.ci_lo);
        ci_hi.push_back(p.ci_hi);
      }
      params.add_column(Column("ci_lo", ci_lo));
      params.add_column(Column("ci_hi", ci_hi));
      data::MeasurementTable reps;
      for (std::size_t k = 0; k < r.params.size(); ++k) reps.add_column(Column(r.params[k].name, r.bootstrap[k]));
      w.write_group("/bootstrap", reps);
    }
    w.write_group("/params", params);

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
    metrics.add_column(Column("name", std::vector<std::string>{"mape", "rmse", "r2", "gmae", "max_rel_err"}));
    metrics.add_column(Column("value", std::vector<double>{r.metrics.mape, r.metrics.rmse, r.metrics.r2,
                                                           r.metrics.gmae, r.metrics.max_rel_err}));
    w.write_group("/metrics", metrics);
    w.close();
  });
}

namespace {

std::string need_string(const data::Attributes& a, const std::string& key, const std::string& path) {
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
    throw DataError("'" + path + "' is not a complete perfit result: attribute '" + key + "' is missing");
  }
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  throw DataError("'" + path + "' attribute '" + key + "' is text, expected a number");
}

}  // namespace

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
    throw DataError("'" + path + "' is " + describe(kind) + ", not a perfit result; pass the "
                    "file `perfit fit --out` wrote");
  }
  StoreReader rd(path);
  const data::Attributes a = rd.root_attributes();
  auto fmt = a.find("perfit_result");
  if (fmt == a.end()) {
    throw DataError("'" + path + "' is an HDF5 file but not a perfit result (no 'perfit_result' "
                    "attribute). Pass the file `perfit fit --out` wrote");
  }
  if (data::attribute_text(fmt->second) != kResultFormat) {
    throw DataError("'" + path + "' is a result of format '" + data::attribute_text(fmt->second) +
                    "', expected '" + kResultFormat + "'");
  }
  ResultFile r;
  r.model_name = need_string(a, "model", path);
  r.model_yaml = need_string(a, "model_yaml", path);
  r.config_yaml = need_string(a, "config_yaml", path);
  r.data_file = need_string(a, "data_file", path);
  r.set = need_string(a, "set", path);
  r.data_checksum = need_string(a, "data_checksum", path);
  r.target = need_string(a, "target", path);
  r.unit = need_string(a, "unit", path);
  r.rows = static_cast<std::size_t>(need_number(a, "rows", path));
  r.seed = static_cast<std::uint64_t>(need_number(a, "seed", path));
  r.cost = need_number(a, "cost", path);
  r.cost_before_polish = need_number(a, "cost_before_polish", path);
  r.polish_improved = need_number(a, "polish_improved", path) != 0;
  r.stop_reason = need_string(a, "stop_reason", path);
  r.stop_message = need_string(a, "stop_message", path);
  r.generations = static_cast<std::size_t>(need_number(a, "generations", path));
  r.evaluations = static_cast<std::size_t>(need_number(a, "evaluations", path));
  r.seconds = need_number(a, "seconds", path);
  if (a.count("de_seconds")) r.de_seconds = need_number(a, "de_seconds", path);
  for (auto [key, field] : {std::pair{"migration_seconds", &r.migration_seconds}, {"vote_seconds", &r.vote_seconds},
                            {"reduce_seconds", &r.reduce_seconds}, {"peak_rss_mib", &r.peak_rss_mib}}) {
    if (a.count(key)) *field = need_number(a, key, path);
  }
  if (a.count("rows_dropped")) r.rows_dropped = static_cast<std::size_t>(need_number(a, "rows_dropped", path));
  r.ranks = static_cast<int>(need_number(a, "ranks", path));
  r.perfit_version = need_string(a, "perfit_version", path);
  r.git_revision = need_string(a, "git_revision", path);
  r.created_utc = need_string(a, "created_utc", path);
  if (a.count("warnings")) {
    std::stringstream ws(data::attribute_text(a.at("warnings")));
    for (std::string line; std::getline(ws, line);) r.warnings.push_back(line);
  }
  const data::MeasurementTable p = rd.read_group("/params");
  for (std::size_t i = 0; i < p.rows(); ++i) {
    ResultParam q;
    q.name = p.column("name").str()[i];
    q.value = p.column("value").f64()[i];
    q.lo = p.column("lo").f64()[i];
    q.hi = p.column("hi").f64()[i];
    q.log_scale = p.column("log_scale").i64()[i] != 0;
    q.at_bound = p.column("at_bound").i64()[i] != 0;
    q.identifiable = !p.find("identifiable") || p.column("identifiable").i64()[i] != 0;
    q.linear = p.find("linear") && p.column("linear").i64()[i] != 0;
    if (p.find("ci_lo")) {
      q.ci_lo = p.column("ci_lo").f64()[i];
      q.ci_hi = p.column("ci_hi").f64()[i];
    }
    r.params.push_back(q);
  }
  r.history = rd.read_group("/history").column("best_cost").f64();
  if (a.count("lambda")) r.lambda = need_number(a, "lambda", path);
  if (a.count("lambda_split")) r.lambda_split = need_string(a, "lambda_split", path);
  if (a.count("bootstrap_requested")) {
    r.bootstrap_requested = static_cast<std::size_t>(need_number(a, "bootstrap_requested", path));
    r.bootstrap_resampled = need_string(a, "bootstrap_resampled", path);
    r.ci = need_number(a, "ci", path);
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
