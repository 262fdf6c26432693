// `perfit select`: fit every candidate model, rank them by how well they predict what they were
// not fitted on (or by AIC/BIC), print the table, and optionally write the winner's fit.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis_options.hpp"
#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/identifiability.hpp"
#include "perfit/select/many_sets.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/search.hpp"
#include "perfit/select/select_set.hpp"
#include "perfit/select/winner.hpp"

namespace perfit::app {

namespace {

using job::FitJob;
using job::FitJobOutcome;
using select::Candidate;
using select::SelectArgs;
using select::Selection;

// `perfit select`'s arguments: the selection's, and the fits' options as flags.
struct SelectCommand : select::SelectArgs {
  AnalysisFlags flags;
};

void print_table(const std::vector<select::Candidate>& ranked, const std::string& criterion,
                 const std::string& how) {
  std::printf("model selection by %s (%s); lower score is better\n", criterion.c_str(),
              how.c_str());
  std::printf("  %-4s %-20s %6s %14s %9s %9s %9s %9s\n", "rank", "model", "params", "score", "MAPE",
              "GMAE", "R^2", "max rel");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& m = ranked[i];
    const auto& x = m.pooled.metrics;
    if (m.pooled.failed) {
      std::printf("  %-4zu %-20s %6zu %14s  (a fit failed; see the warnings)\n", i + 1,
                  m.label().c_str(), m.model->n_params(), "-");
      continue;
    }
    std::printf(
        "  %-4zu %-20s %6zu %14.6g %8.3g%% %8.3g%% %9.4f %8.3g%%%s%s\n", i + 1, m.label().c_str(),
        m.model->n_params(), m.score, x.mape, x.gmae, x.r2, x.max_rel_err,
        !m.why.empty() ? ("  (first: " + m.why + ")").c_str()
        : m.determined ? ""
                       : "  (more constants than training configurations: ranked last)",
        m.searched() ? ("  (on every row: " + m.found.expression(m.search_columns) + ")").c_str()
                     : "");
  }
}

// The winner's fit on every row, written by the same job as `perfit fit`.
int write_winner(const select::SelectArgs& a, const fit::RunConfig& cfg,
                 const select::Selection& s) {
  job::FitJob job = select::winner_job(a, cfg, s);
  // Rank 0 writes the result: there the other candidates too are fitted on every row.
  if (!a.parallel() || a.env->rank() == 0) job.candidates = select::candidate_fits(a, cfg, s);
  const job::FitJobOutcome out = job::run_fit_job(std::move(job), a.comm());
  if (out.result)
    spdlog::info("wrote the fit of the winner '{}' to {}", s.ranked.front().label(), out.out);
  return out.code;
}

int run_select(const SelectCommand& a) {
  const fit::RunConfig cfg = read_analysis_options(a.config, a.flags, a, false);
  if (io::is_set_glob(cfg.set)) return select::run_select_many(a, cfg);
  if (a.result_files) {
    throw ConfigError(
        "--result-files is for a glob in --set (many sets); with one set --out FILE writes its "
        "winner");
  }
  const fit::RunConfig& c = cfg;
  a.agreed([&] {
    if (!c.out.empty() && a.env->rank() == 0) {
      std::vector<std::string> inputs{c.data};
      if (!a.config.empty()) inputs.push_back(a.config);
      io::check_output({c.out, "--out", io::FileKind::result, inputs, a.force});
    }
  });
  const select::Selection s = select::select_set(
      a, c, [&](const std::function<void()>& fn) { a.agreed(fn); }, a.comm());
  const std::vector<select::Candidate>& ranked = s.ranked;
  int code = 0;
  if (!c.out.empty()) code = write_winner(a, cfg, s);
  if (a.parallel() && a.env->rank() != 0) return code;
  if (a.json) {
    nlohmann::ordered_json j = {{"best", ranked.front().model->spec().name},
                                {"criterion", select::to_string(a.criterion)},
                                {"how", s.how},
                                {"data", c.data},
                                {"set", c.set},
                                {"rows", s.set.rows->rows()}};
    if (ranked.front().joint) j["best_kinds"] = ranked.front().kinds;
    j["ranking"] = select::ranking_json(ranked, a.criterion);
    if (!c.out.empty()) j["result"] = c.out;
    std::cout << j.dump(2) << "\n";
  } else {
    print_table(ranked, select::to_string(a.criterion), s.how);
    if (!c.out.empty())
      std::printf("wrote %s (the winner, '%s', fitted on every row)\n", c.out.c_str(),
                  ranked.front().label().c_str());
  }
  return code;
}

// The command's own options (the choice's, then the command's); the fits' are
// job::analysis_option_table().
const OptionTable<select::SelectArgs>& select_options() {
  using A = select::SelectArgs;
  static const OptionTable<A> t = [] {
    OptionTable<A> o = select::select_choice_options();
    o.insert(o.begin(), text_option<A>("config", &A::config, "a YAML file",
                                       "YAML config (the keys of configs/fit.yaml)"));
    o.push_back(force_option<A>(
        &A::force, "replace an existing result file at --out (a glob in --set: the files in DIR)"));
    o.push_back(json_option<A>(&A::json));
    return o;
  }();
  return t;
}

}  // namespace

void add_select_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<SelectCommand>();
  a->env = &env;
  auto* cmd = add_command(
      app, action, "select",
      "Fit every candidate model and rank them. Criteria: extrapolation (default: predict each\n"
      "value of the scale column from the smaller ones, score = MAPE there; naive-ideal,\n"
      "naive-loglog and ideal-fit compete too, and along one column Amdahl's law goes first\n"
      "unless the data say otherwise), kfold (MAPE over K folds of\n"
      "configurations), aic, bic (in-sample, n ln(mean residual) + penalty per constant).\n"
      "Without --models every built-in whose factors the set has (after --factors) competes.\n"
      "--by COLUMN: each model as a joint fit of the groups, every constant pooled, shared and\n"
      "per group (or the kinds --shared/--per-group/--pooled give) competing (docs/joint.md).\n"
      "--out writes the winner's fit on every row as a normal result file (docs/selection.md).",
      a, select_options(), run_select,
      mpi::ThreadLevel::multiple);  // over many sets rank 0 hands them out from a second thread
  a->flags.add(cmd, job::analysis_option_table(true, true), fit::RunConfig{});
}

}  // namespace perfit::app
