// `perfit validate`: how well a model predicts held-out rows (k-fold, leave-one-group-out,
// extrapolation to the largest scale), each fold a fit through the engine, spread over ranks.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis_options.hpp"
#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/select/validate.hpp"

namespace perfit::app {

namespace {

struct ValidateArgs : job::Ranks {
  std::string config;
  bool json = false;
  AnalysisFlags flags;
  std::string split = "kfold:5";
};

void print_row(const std::string& name, std::size_t train, std::size_t test,
               const model::FitMetrics& m, const std::string& unit) {
  std::printf("  %-28s %7s %6zu %8.3g%% %8.3g%% %10.4g %s %8.4f %8.3g%%\n", name.c_str(),
              train ? std::to_string(train).c_str() : "", test, m.mape, m.gmae, m.rmse,
              unit.c_str(), m.r2, m.max_rel_err);
}

int run_validate(const ValidateArgs& a) {
  const fit::RunConfig cfg = read_analysis_options(a.config, a.flags, a, false);
  const fit::RunConfig& c = cfg;
  const select::Validation v = select::run_validation(
      c, a.split, [&](const std::function<void()>& fn) { a.agreed(fn); }, a.comm());
  const auto& [split, model, joint, set, fits, pooled] = v;
  if (a.parallel() && a.env->rank() != 0) return 0;
  const std::string unit = set.rows->attribute_string("unit", "s");
  if (a.json) {
    std::cout << select::validation_json(v, c).dump(2) << "\n";
    return 0;
  }
  std::printf("validate model '%s' on '%s' set '%s' (%zu rows), split %s: %zu fold(s)\n",
              model->spec().name.c_str(), c.data.c_str(), c.set.c_str(), set.rows->rows(),
              split.text().c_str(), fits.size());
  if (!joint.empty()) {
    std::printf(
        "jointly over %zu groups by %s, each fold's pooled strengths chosen on its training rows\n",
        joint.groups.labels.size(), join(joint.groups.by).c_str());
  }
  std::printf("  %-28s %7s %6s %9s %9s %13s %8s %9s\n", "held out", "train", "test", "MAPE", "GMAE",
              "RMSE", "R^2", "max rel");
  for (const auto& f : fits) print_row(f.fold, f.train_rows, f.test_rows, f.test, unit);
  print_row("all held-out rows", 0, pooled.rows, pooled.metrics, unit);
  std::printf("held-out cost (%s, mean over the held-out rows): %.6g\n",
              model::to_string(c.cost.residual), pooled.cost);
  return 0;
}

// The command's own options; the fits' are job::analysis_option_table().
const OptionTable<ValidateArgs>& validate_options() {
  using A = ValidateArgs;
  static const OptionTable<A> t = {
      text_option<A>("config", &A::config, "a YAML file",
                     "YAML config (the keys of configs/fit.yaml)"),
      text_option<A>("split", &A::split,
                     "kfold:K, group:COLUMN[:K], scale:COLUMN[:K] or forward:COLUMN",
                     "which rows each fold holds out"),
      json_option<A>(&A::json),
  };
  return t;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<ValidateArgs>();
  a->env = &env;
  auto* cmd = add_command(
      app, action, "validate",
      "How well a model predicts rows it was not fitted on: fit on the training rows of each\n"
      "fold, predict the held-out rows, report MAPE, GMAE, RMSE, R^2 and the largest relative\n"
      "error per fold and over all held-out rows. Splits: kfold:K (configurations dealt to K\n"
      "folds), group:COLUMN (leave one value out, e.g. per framework), scale:COLUMN[:K]\n"
      "(train below the K largest values, predict those: extrapolation), forward:COLUMN (each\n"
      "value from the third up predicted from the smaller ones); group:COLUMN:K trains on the\n"
      "held-out group's K smallest scales too (a group predicted from a few small runs). With\n"
      "--by each fold is a joint fit of the groups (docs/joint.md). Under mpiexec the folds are\n"
      "spread over the ranks. Fit options as for `perfit fit` (docs/validation.md).",
      a, validate_options(), run_validate);
  a->flags.add(cmd, job::analysis_option_table(false, true), fit::RunConfig{});
}

}  // namespace perfit::app
