#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/fit/predictive.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/csv_reader.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/job/factor_args.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/measured_range.hpp"
#include "perfit/job/prediction.hpp"
#include "perfit/job/result_names.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::app {

namespace {

struct PredictArgs {
  std::string set;  // --set: a selection store's winner
  std::string result, at, grid, out;
  double interval = 0.0;  // > 0: the prediction interval at this level (fit/predictive.hpp)
  bool json = false, force = false;
};

// A field quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The grid's own fields are written back as given (260.1 stays 260.1), then the predictions.
void write_grid(const std::string& path, const io::CsvTable& grid, const Eigen::VectorXd& pred,
                const Eigen::MatrixXd& terms, const std::vector<std::string>& term_names,
                const std::string& target, const std::optional<fit::PredictionInterval>& iv,
                const std::vector<std::string>& extrapolated) {
  io::AtomicOutput out(path);
  out.write_and_commit([&](const std::string& temp) {
    std::ofstream f(temp);
    if (!f) throw IoError("cannot write '" + path + "'");
    std::string header;
    for (const auto& c : grid.table.column_names()) header += csv_field(c) + ",";
    header += "predicted_" + target;
    if (iv) header += ",lo_" + target + ",hi_" + target;
    header += ",extrapolated";
    for (const auto& n : term_names) header += "," + csv_field("term_" + n);
    f << header << "\n";
    char buf[32];
    for (std::size_t i = 0; i < grid.table.rows(); ++i) {
      for (const auto& field : grid.text[i]) f << csv_field(field) << ",";
      std::snprintf(buf, sizeof buf, "%.10g", pred(static_cast<Eigen::Index>(i)));
      f << buf;
      if (iv) {
        for (const Eigen::VectorXd* v : {&iv->lo, &iv->hi}) {
          std::snprintf(buf, sizeof buf, "%.10g", (*v)(static_cast<Eigen::Index>(i)));
          f << "," << buf;
        }
      }
      f << "," << csv_field(extrapolated[i]);
      for (Eigen::Index k = 0; k < terms.cols(); ++k) {
        std::snprintf(buf, sizeof buf, "%.10g", terms(static_cast<Eigen::Index>(i), k));
        f << "," << buf;
      }
      f << "\n";
    }
    if (!f.flush())
      throw IoError("writing '" + path + "' failed (disk full?); the old file is unchanged");
  });
}

// What predict found at one configuration (--at).
struct OnePrediction {
  const Eigen::VectorXd& pred;
  const Eigen::MatrixXd& terms;
  const std::vector<std::string>& names;
  const job::Interval& iv;
  const std::vector<job::Outside>& outside;
  bool range_known;
};

// --at's answer: JSON, or the time, its interval, extrapolation flags and each term's share.
void report_one(const PredictArgs& a, const io::ResultFile& r, const std::string& model,
                const data::MeasurementTable& table, const OnePrediction& p) {
  const auto& [pred, terms, names, iv, outside, range_known] = p;
  if (a.json) {
    nlohmann::ordered_json j;
    j["model"] = model;
    j["result"] = a.result;
    j["at"] = nlohmann::ordered_json::object();
    for (const auto& c : table.columns()) {  // a joint fit's group column holds text
      j["at"][c.name()] = c.is_numeric() ? nlohmann::ordered_json(c.to_double()[0])
                                         : nlohmann::ordered_json(c.str()[0]);
    }
    j["prediction"] = pred(0);
    if (iv.bounds) {
      j["interval"] = {{"lo", iv.bounds->lo(0)},
                       {"hi", iv.bounds->hi(0)},
                       {"level", iv.level},
                       {"contains", iv.contains}};
      if (r.has_bootstrap()) j["interval"]["refits"] = r.bootstrap.front().size();
    } else if (iv.asked_but_unavailable) {
      j["interval"] = {
          {"lo", nullptr}, {"hi", nullptr}, {"level", iv.level}, {"contains", iv.contains}};
    }
    j["unit"] = r.unit;
    j["range_known"] = range_known;
    j["extrapolated"] = job::outside_json(outside);
    j["terms"] = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < names.size(); ++k)
      j["terms"][names[k]] = terms(0, static_cast<Eigen::Index>(k));
    std::cout << j.dump(2) << "\n";
    return;
  }
  // "time", not the target's name: at epochs=90 an epoch_s fit predicts 90 epochs.
  std::printf("model '%s' (%s, fitted to %s): predicted time at %s = %.6g %s\n", model.c_str(),
              a.result.c_str(), r.target.c_str(), a.at.c_str(), pred(0), r.unit.c_str());
  if (iv.bounds) {
    std::printf("  %.3g%% interval %.6g .. %.6g %s\n    contains: %s\n", 100.0 * iv.level,
                iv.bounds->lo(0), iv.bounds->hi(0), r.unit.c_str(), iv.contains.c_str());
  } else if (iv.asked_but_unavailable) {
    std::printf("  %s\n", iv.contains.c_str());
  }
  for (const auto& o : outside) std::printf("  extrapolated: %s\n", o.text().c_str());
  if (!range_known) std::printf("  extrapolated: range unknown\n");
  std::printf("  %-20s %14s %8s\n", "term", r.unit.c_str(), "share");
  for (std::size_t k = 0; k < names.size(); ++k) {
    const double v = terms(0, static_cast<Eigen::Index>(k));
    std::printf("  %-20s %14.6g %7.1f%%\n", names[k].c_str(), v, 100.0 * v / pred(0));
  }
}

// A factor's column of the grid that holds text: the file, line and cell, before any prediction.
void check_grid_factors(const io::CsvTable& grid, const std::string& path, const io::ResultFile& r,
                        const std::string& result) {
  model::ModelSpec spec = io::parse_model_yaml(r.model_yaml, result + " model_yaml");
  const std::vector<std::string> factors = model::Model::factors(spec);
  const job::ResultNames names(r, result);
  const auto& columns = grid.table.columns();
  for (std::size_t k = 0; k < columns.size(); ++k) {
    const std::string as_read = names.column(columns[k].name());
    if (columns[k].is_numeric() ||
        std::find(factors.begin(), factors.end(), as_read) == factors.end())
      continue;
    for (std::size_t i = 0; i < grid.text.size(); ++i) {
      const std::string& cell = grid.text[i][k];
      double v = 0;
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (ec == std::errc() && end == cell.data() + cell.size()) continue;
      throw DataError("'" + path + "' line " + std::to_string(grid.line_of_row[i]) + ", column '" +
                      columns[k].name() + "': found '" + cell +
                      "', expected a number (the model reads it as factor " + as_read + ")");
    }
  }
}

int run_predict(const PredictArgs& a) {
  if (a.at.empty() == a.grid.empty()) {
    throw ConfigError("give exactly one of --at NAME=VALUE,... or --grid GRID.csv");
  }
  if (!a.grid.empty() && a.out.empty()) throw ConfigError("--grid needs --out PRED.csv");
  if (!a.out.empty() && a.grid.empty()) throw ConfigError("--out goes with --grid; --at prints");
  if (!a.out.empty()) {
    io::check_output({a.out, "--out", io::FileKind::predictions, {a.result, a.grid}, a.force});
  }
  const io::ResultFile r = io::read_result(a.result, a.set);
  io::CsvTable grid;
  if (!a.grid.empty()) {
    io::CsvOptions co;
    co.keep_text = true;
    co.suggest_categorical = false;
    grid = io::read_csv(a.grid, co);
    check_grid_factors(grid, a.grid, r, a.result);
  }
  const std::string where = a.at.empty() ? "'" + a.grid + "'" : "--at";
  // A grid may carry other columns (kept in the output); --at must name exactly the factors.
  const job::Prediction p =
      job::predict_rows(r, a.result, a.at.empty() ? grid.table : job::at_row(a.at, r), where,
                        !a.at.empty(), a.interval);
  const auto& [table, pred, terms, names, iv, outside, guard, note] = p;
  guard.warn(outside, "predict");
  if (!note.empty()) std::fprintf(stderr, "perfit predict: note: %s\n", note.c_str());
  if (!a.grid.empty()) {
    std::vector<std::string> cells;
    for (const auto& o : outside)
      cells.push_back(guard.known() ? job::RangeGuard::cell(o) : "range unknown");
    if (iv.asked_but_unavailable) spdlog::warn("predict: {}", iv.contains);
    write_grid(a.out, grid, pred, terms, names, r.target, iv.bounds, cells);
    const std::string bounds = iv.bounds ? ", lo_" + r.target + ", hi_" + r.target : "";
    std::printf(
        "wrote %zu predictions of %s to '%s' (columns predicted_%s%s, extrapolated and term_*)\n",
        table.rows(), r.target.c_str(), a.out.c_str(), r.target.c_str(), bounds.c_str());
    return 0;
  }
  report_one(a, r, r.model_name, table, {pred, terms, names, iv, outside[0], guard.known()});
  return 0;
}

const OptionTable<PredictArgs>& predict_options() {
  using A = PredictArgs;
  static const OptionTable<A> t = {
      required(text_option<A>("result", &A::result, "a result file",
                              "result file written by perfit fit")),
      winner_set_option<A>(&A::set),
      text_option<A>("at", &A::at, "NAME=VALUE,...",
                     "one configuration, e.g. p=64,b=256,d=1.28e6,epochs=1"),
      text_option<A>("grid", &A::grid, "a CSV file",
                     "CSV of configurations (header = factor names)"),
      out_option<A>(&A::out, "CSV to write for --grid"),
      json_option<A>(&A::json, "JSON (with --at)"),
      force_option<A>(&A::force, "replace an existing predictions CSV at --out"),
      interval_option<A>(&A::interval),
  };
  return t;
}

}  // namespace

void add_predict_command(CLI::App& app, Action& action) {
  add_command(app, action, "predict",
              "Predict the time at new configurations from a fit's result file, with the\n"
              "contribution of each named term of the model.",
              std::make_shared<PredictArgs>(), predict_options(), run_predict);
}

}  // namespace perfit::app
