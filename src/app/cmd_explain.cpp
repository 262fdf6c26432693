// perfit explain: what a fitted model says along one factor (model/sweep.hpp).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/job/factor_args.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/measured_range.hpp"
#include "perfit/job/prediction.hpp"
#include "perfit/job/result_names.hpp"
#include "perfit/model/sweep.hpp"

namespace perfit::app {

namespace {

struct ExplainArgs {
  std::string set;  // --set: a selection store's winner
  std::string result, sweep, at;
  double efficiency = 0.5;
  bool json = false;
};

// The sweep's rows: the swept factor, and every other factor fixed by --at, in the model's
// column names (a factor may be named as bound by the fit: p for gpus).
data::MeasurementTable sweep_rows(const job::FactorRange& sweep, const std::vector<double>& x,
                                  const std::string& at, const io::ResultFile& r,
                                  const std::string& result, model::ModelSpec& spec) {
  const job::ResultNames names(r, result);
  data::MeasurementTable t;
  t.add_column(data::Column(sweep.name, x));
  if (!at.empty()) {
    // One row of --at on every point; a joint fit's group by its column (framework=pytorch).
    const data::MeasurementTable one = job::at_row(at, r);
    for (const auto& c : one.columns()) {
      if (names.column(c.name()) == names.column(sweep.name)) {
        throw ConfigError("--at sets '" + c.name() + "', which --sweep varies");
      }
      t.add_column(c.is_numeric()
                       ? data::Column(c.name(), std::vector<double>(x.size(), c.to_double()[0]))
                       : data::Column(c.name(), std::vector<std::string>(x.size(), c.str()[0])));
    }
  }
  return job::bind_rows(r, result, t, "--sweep and --at", true, spec, nullptr);
}

// `flags`: per point, where it lies outside the measured range ("" inside).
void print_report(const model::SweepReport& r, const std::string& unit,
                  const std::vector<std::string>& flags) {
  std::printf("%10s %14s %8s", r.factor.c_str(), ("time " + unit).c_str(), "effic.");
  for (const auto& t : r.terms) std::printf(" %12s", t.substr(0, 12).c_str());
  std::printf("  extrapolated\n");
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    std::printf("%10.6g %14.6g %7.1f%%", r.x[i], r.time[i], 100.0 * r.efficiency[i]);
    for (Eigen::Index k = 0; k < r.share.cols(); ++k) {
      std::printf(" %11.1f%%", 100.0 * r.share(static_cast<Eigen::Index>(i), k));
    }
    std::printf("  %s\n", flags[i].c_str());
  }
  for (const auto& c : r.crossovers) {
    std::printf("crossover: %s overtakes %s at %s ~ %.4g\n", c.to.c_str(), c.from.c_str(),
                r.factor.c_str(), c.at);
  }
  if (r.crossovers.empty()) {
    std::printf("crossover: none (%s dominates the whole sweep)\n",
                r.terms.empty() ? "the expression" : r.terms[0].c_str());
  }
  std::printf("minimum time: %.6g %s at %s=%.6g\n", r.best_time, unit.c_str(), r.factor.c_str(),
              r.best_x);
  std::printf("parallel efficiency >= %.0f%% up to %s=%.6g\n", 100.0 * r.threshold,
              r.factor.c_str(), r.last_efficient_x);
}

nlohmann::ordered_json report_json(const model::SweepReport& r, const std::string& result,
                                   const std::string& unit,
                                   const std::vector<std::vector<job::Outside>>& outside,
                                   bool range_known) {
  nlohmann::ordered_json j = {
      {"result", result}, {"factor", r.factor}, {"unit", unit}, {"range_known", range_known}};
  j["points"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    nlohmann::ordered_json p = {
        {r.factor, r.x[i]}, {"time", r.time[i]}, {"efficiency", r.efficiency[i]}};
    p["share"] = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < r.terms.size(); ++k) {
      p["share"][r.terms[k]] = r.share(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
    }
    p["extrapolated"] = job::outside_json(outside[i]);
    j["points"].push_back(p);
  }
  j["crossovers"] = nlohmann::ordered_json::array();
  for (const auto& c : r.crossovers)
    j["crossovers"].push_back({{"from", c.from}, {"to", c.to}, {"at", c.at}});
  j["minimum"] = {{r.factor, r.best_x}, {"time", r.best_time}};
  j["efficiency_threshold"] = r.threshold;
  j["efficient_up_to"] = r.last_efficient_x;
  return j;
}

int run_explain(const ExplainArgs& a) {
  const std::vector<job::FactorRange> sweep = job::parse_ranges(a.sweep, "--sweep");
  if (sweep.size() != 1) throw ConfigError("--sweep takes one factor, e.g. --sweep p=1..1024");
  if (!(a.efficiency > 0.0 && a.efficiency <= 1.0)) {
    throw ConfigError("--efficiency must be in (0, 1], got " + format_g(a.efficiency));
  }
  const io::ResultFile r = io::read_result(a.result, a.set);
  const std::string factor = job::ResultNames(r, a.result).column(sweep[0].name);
  const std::vector<double> x = model::doubling_sweep(sweep[0].lo, sweep[0].hi);
  model::ModelSpec spec;
  const data::MeasurementTable t = sweep_rows(sweep[0], x, a.at, r, a.result, spec);
  const model::Model m(spec, t.column_names());
  const model::Evaluator ev(m, t);
  Eigen::VectorXd params(static_cast<Eigen::Index>(r.params.size()));
  for (std::size_t k = 0; k < r.params.size(); ++k)
    params(static_cast<Eigen::Index>(k)) = r.params[k].value;
  const model::SweepReport rep = model::analyse_sweep(ev, params, factor, x, a.efficiency);
  const job::RangeGuard guard(r, model::Model::factors(spec));
  std::vector<std::vector<job::Outside>> outside(t.rows());
  std::vector<std::string> flags;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    outside[i] = guard.check(t, i);
    flags.push_back(guard.known() ? job::RangeGuard::cell(outside[i]) : "range unknown");
  }
  guard.warn(outside, "explain");
  if (a.json) {
    std::cout << report_json(rep, a.result, r.unit, outside, guard.known()).dump(2) << "\n";
  } else {
    std::printf("model '%s' (%s) along %s = %s, %s\n", spec.name.c_str(), a.result.c_str(),
                factor.c_str(), a.sweep.substr(a.sweep.find('=') + 1).c_str(),
                a.at.empty() ? "no other factor" : a.at.c_str());
    print_report(rep, r.unit, flags);
  }
  return 0;
}

const OptionTable<ExplainArgs>& explain_options() {
  using A = ExplainArgs;
  static const OptionTable<A> t = {
      required(text_option<A>("result", &A::result, "a result file",
                              "result file written by perfit fit")),
      winner_set_option<A>(&A::set),
      required(
          text_option<A>("sweep", &A::sweep, "NAME=LO..HI", "factor and range, e.g. p=1..1024")),
      text_option<A>("at", &A::at, "NAME=VALUE,...",
                     "the model's other factors, e.g. b=256,d=1.28e6,epochs=1 (a joint fit: and "
                     "its group, framework=pytorch)"),
      real_option<A>("efficiency", &A::efficiency, 0.0, 1.0, "parallel-efficiency threshold"),
      json_option<A>(&A::json, "JSON"),
  };
  return t;
}

}  // namespace

void add_explain_command(CLI::App& app, Action& action) {
  add_command(app, action, "explain",
              "What a fitted model says along one factor: each term's share of the time, where\n"
              "the dominant term changes, the point of minimum time and how far parallel\n"
              "efficiency stays above a threshold. The sweep doubles from LO to HI.",
              std::make_shared<ExplainArgs>(), explain_options(), run_explain);
}

}  // namespace perfit::app
