// `perfit select`: fit every candidate model, rank them by how well they predict what they were
// not fitted on (or by AIC/BIC), print the table, and optionally write the winner's fit.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "analysis_set.hpp"
#include "commands.hpp"
#include "common_flags.hpp"
#include "fit_job.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/validation.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/identifiability.hpp"
#include "select_search.hpp"

namespace perfit::app {

namespace {

enum class Criterion { extrapolation, kfold, aic, bic };

const char* to_string(Criterion c) {
  switch (c) {
    case Criterion::extrapolation: return "extrapolation";
    case Criterion::kfold: return "kfold";
    case Criterion::aic: return "aic";
    case Criterion::bic: return "bic";
  }
  return "?";
}

struct SelectArgs : AnalysisOptions {
  std::string models;
  Criterion criterion = Criterion::extrapolation;
  std::size_t folds = 5, holdout = 1;
  model::SearchOptions search{};
  bool force = false;
};

const std::vector<Criterion> kCriteria{Criterion::extrapolation, Criterion::kfold, Criterion::aic, Criterion::bic};

Criterion parse_criterion(const std::string& s) {
  for (const Criterion c : kCriteria) {
    if (s == to_string(c)) return c;
  }
  throw ConfigError("found '" + s + "', expected one of extrapolation, kfold, aic, bic");
}

struct Candidate {
  std::string word;  // as the user (or the built-in list) named it
  std::shared_ptr<const model::Model> model;
  std::vector<fit::FoldFit> fits;
  fit::Pooled pooled;
  double score = 0.0;
  // Every fold's training rows hold at least as many distinct configurations (of the factors
  // the model reads) as the model has constants. An underdetermined model can pass through
  // its training points and still look good one step out; it ranks after every determined one.
  bool determined = true;
  std::vector<std::string> search_columns{};  // pmnf-search: Extra-P's search over these columns
  model::PmnfHypothesis found{};              // pmnf-search: the hypothesis on every row
  bool searched() const { return !search_columns.empty(); }
};

// --scale COLUMN, or the column bound to p, or a column named p.
std::string scale_of(const fit::RunConfig& c, const std::vector<std::string>& columns) {
  std::string col = c.scale;
  for (const auto& b : model::parse_factor_bindings(c.factors)) {
    if (col.empty() && b.factor == "p" && !b.column.empty()) col = b.column;
  }
  if (col.empty() && std::find(columns.begin(), columns.end(), "p") != columns.end()) col = "p";
  return col;
}

// The K largest values of the scale column.
data::SplitSpec extrapolation_split(const SelectArgs& a, const fit::RunConfig& c,
                                    const std::vector<std::string>& columns) {
  const std::string col = scale_of(c, columns);
  if (col.empty()) {
    throw ConfigError("select --criterion extrapolation needs the scale column: pass --scale COLUMN "
                      "(e.g. --scale n_accelerators), or bind p with --factors p=COLUMN");
  }
  data::SplitSpec s;
  s.kind = data::SplitKind::scale;
  s.column = col;
  s.k = a.holdout;
  return s;
}

// A binding no candidate reads is a typo, as in `perfit fit`.
void check_bindings_used(const fit::RunConfig& c, const std::vector<Candidate>& cands) {
  for (const auto& b : model::parse_factor_bindings(c.factors)) {
    const bool read = std::any_of(cands.begin(), cands.end(), [&](const Candidate& m) {
      return !m.searched() && !model::bindings_for(io::load_model(m.word), {b}).empty();
    });
    if (!read) throw ConfigError("--factors binds '" + b.factor + "', which no candidate reads");
  }
}

// Explicit --models must all bind; the default list keeps the built-ins the set can feed.
std::vector<Candidate> candidates(const SelectArgs& a, const fit::RunConfig& c, const std::vector<std::string>& columns) {
  std::vector<Candidate> out;
  if (!a.models.empty()) {
    for (const auto& word : split_list(a.models)) {
      std::vector<std::string> cols;
      if (is_search_word(word, cols)) {
        if (cols.empty() && !scale_of(c, columns).empty()) cols.push_back(scale_of(c, columns));
        if (cols.empty()) throw ConfigError("--models pmnf-search: name its parameter, pmnf-search:COLUMN (or pass --scale)");
        Candidate m{word, search_placeholder(word, cols, columns), {}, {}, 0.0};
        m.search_columns = cols;
        out.push_back(std::move(m));
        continue;
      }
      out.push_back({word, bind_model(word, c, columns, false), {}, {}, 0.0});
    }
    check_bindings_used(c, out);
    return out;
  }
  for (const auto& spec : io::builtin_models()) {
    const model::ModelSpec bound =
        model::bind_factors(spec, model::bindings_for(spec, model::parse_factor_bindings(c.factors)));
    std::vector<std::string> missing;
    for (const auto& f : model::Model::factors(bound)) {
      if (std::find(columns.begin(), columns.end(), f) == columns.end()) missing.push_back(f);
    }
    if (!missing.empty()) {
      spdlog::info("select: skipping built-in '{}': it reads {}, not columns of the set (bind them with "
                   "--factors NAME=COLUMN or NAME=NUMBER)", spec.name, join(missing));
      continue;
    }
    out.push_back({spec.name, bind_model(spec.name, c, columns, false), {}, {}, 0.0});
  }
  if (out.empty()) {
    throw DataError("select: no built-in model can read '" + c.data + "' set '" + c.set + "' (columns: " +
                    join(columns) + "); bind their factors with --factors p=COLUMN,... or pass --models");
  }
  check_bindings_used(c, out);
  return out;
}

double score_of(const Candidate& m, Criterion crit) {
  if (m.pooled.failed) return std::numeric_limits<double>::infinity();
  if (crit == Criterion::extrapolation || crit == Criterion::kfold) return m.pooled.metrics.mape;
  const double n = static_cast<double>(m.pooled.rows), k = static_cast<double>(m.model->n_params());
  const double fit_term = n * std::log(std::max(m.pooled.cost, 1e-300));
  return fit_term + (crit == Criterion::aic ? 2.0 * k : k * std::log(n));
}

nlohmann::ordered_json hypothesis_json(const Candidate& m) {
  nlohmann::ordered_json h = {{"expression", m.found.expression(m.search_columns)}, {"c0", m.found.c0}};
  for (std::size_t t = 0; t < m.found.terms.size(); ++t) h["c" + std::to_string(t + 1)] = m.found.terms[t].coefficient;
  h[m.found.leave_one_out ? "loo_smape" : "smape"] = m.found.smape;
  return h;
}

nlohmann::ordered_json ranking_json(const std::vector<Candidate>& ranked, Criterion crit) {
  nlohmann::ordered_json r = nlohmann::ordered_json::array();
  for (const auto& m : ranked) {
    const auto& x = m.pooled.metrics;
    nlohmann::ordered_json e = {{"model", m.model->spec().name}, {"source", m.word},
                                {"score", std::isfinite(m.score) ? nlohmann::ordered_json(m.score) : nullptr},
                                {"params", m.model->n_params()}, {"failed", m.pooled.failed},
                                {"determined", m.determined}};
    if (m.searched()) e["hypothesis"] = hypothesis_json(m);
    if (!m.pooled.failed) {
      e["metrics"] = {{"mape", x.mape}, {"gmae", x.gmae}, {"rmse", x.rmse}, {"r2", x.r2}, {"max_rel_err", x.max_rel_err}};
      e[crit == Criterion::aic || crit == Criterion::bic ? "in_sample_cost" : "held_out_cost"] = m.pooled.cost;
    }
    r.push_back(e);
  }
  return r;
}

void print_table(const std::vector<Candidate>& ranked, const std::string& criterion, const std::string& how) {
  std::printf("model selection by %s (%s); lower score is better\n", criterion.c_str(), how.c_str());
  std::printf("  %-4s %-20s %6s %14s %9s %9s %9s %9s\n", "rank", "model", "params", "score", "MAPE", "GMAE", "R^2",
              "max rel");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& m = ranked[i];
    const auto& x = m.pooled.metrics;
    if (m.pooled.failed) {
      std::printf("  %-4zu %-20s %6zu %14s  (a fit failed; see the warnings)\n", i + 1, m.model->spec().name.c_str(),
                  m.model->n_params(), "-");
      continue;
    }
    std::printf("  %-4zu %-20s %6zu %14.6g %8.3g%% %8.3g%% %9.4f %8.3g%%%s%s\n", i + 1, m.model->spec().name.c_str(),
                m.model->n_params(), m.score, x.mape, x.gmae, x.r2, x.max_rel_err,
                m.determined ? "" : "  (more constants than training configurations: ranked last)",
                m.searched() ? ("  (on every row: " + m.found.expression(m.search_columns) + ")").c_str() : "");
  }
}

// The winner's fit on every row, written by the same job as `perfit fit`.
int write_winner(const SelectArgs& a, const fit::RunConfig& cfg, const Candidate& best, const AnalysisSet& set) {
  FitJob job;
  job.cfg = cfg;
  job.cfg.model = best.word;
  if (!best.searched()) {
    job.cfg.factors = model::to_text(model::bindings_for(io::load_model(best.word), model::parse_factor_bindings(cfg.factors)));
  } else {  // the hypothesis found on every row, its coefficients fitted like any model's
    model::PmnfHypothesis found;
    job.model = searched_spec(best.search_columns, *set.rows, a.search, found);
    job.cfg.model = job.model->name;
    job.cfg.factors.clear();
  }
  job.cfg.progress_every = 0;
  if (!a.config.empty()) job.inputs.push_back(a.config);
  job.force = a.force;
  job.verbose = false;
  const FitJobOutcome out = run_fit_job(std::move(job), a.comm());
  if (out.result) spdlog::info("wrote the fit of the winner '{}' to {}", best.model->spec().name, out.out);
  return out.code;
}

// Every candidate's folds (or in-sample fit) spread over the ranks, then its score.
void score_candidates(std::vector<Candidate>& cands, const std::vector<data::Fold>& folds, const AnalysisSet& set,
                      const fit::RunConfig& c, Criterion crit, const model::SearchOptions& search, MPI_Comm comm) {
  std::vector<fit::FoldJob> jobs;
  for (const auto& m : cands) {
    if (m.searched()) continue;  // searched below, on every rank (cheap)
    const fit::FitProblem p{m.model, set.rows, c.cost, {}, c.threads, c.compress, true, c.separable, c.scale};
    if (folds.empty()) jobs.push_back({p, nullptr});
    for (const auto& f : folds) jobs.push_back({p, &f});
  }
  const std::vector<fit::FoldFit> fits = fit::fit_folds(jobs, c.search(), comm);
  const std::size_t per = std::max<std::size_t>(folds.size(), 1);
  std::size_t next = 0;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (!cands[i].searched()) {
      cands[i].fits.assign(fits.begin() + static_cast<std::ptrdiff_t>(next), fits.begin() + static_cast<std::ptrdiff_t>(next + per));
      next += per;
    } else {
      cands[i].fits = search_folds(cands[i].search_columns, *set.rows, folds, c.cost.residual, search);
      searched_spec(cands[i].search_columns, *set.rows, search, cands[i].found);
    }
    cands[i].pooled = fit::pool(cands[i].fits, c.cost.residual);
    cands[i].score = score_of(cands[i], crit);
    for (const auto& f : folds) {
      std::size_t configs = 0;
      data::configuration_ids(data::select_rows(*set.rows, f.train), cands[i].model->columns_used(), configs);
      cands[i].determined = cands[i].determined && configs >= cands[i].model->n_params();
    }
  }
}

// A built-in offered by default must be determinable from the set: at a candidate's own fit
// (its last fold's constants), over every row, each constant must move the predictions in a
// way no other can (model/identifiability.hpp). iteration's t_io*b, f1*b and k1*b, say, never
// can from total times. Those are left out with the reason, unless none would remain; a model
// named in --models always competes.
void drop_undeterminable(std::vector<Candidate>& cands, const data::MeasurementTable& rows) {
  std::vector<std::string> why(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Candidate& m = cands[i];
    const auto fit = std::find_if(m.fits.rbegin(), m.fits.rend(), [](const fit::FoldFit& f) { return !f.failed; });
    if (m.searched() || fit == m.fits.rend()) continue;
    const model::Identifiability id = model::check_identifiability(model::Evaluator(*m.model, rows), fit->params);
    const auto n = std::count(id.identifiable.begin(), id.identifiable.end(), false);
    if (n > 0) {
      why[i] = std::to_string(n) + " of its " + std::to_string(m.model->n_params()) + " constants cannot be "
               "determined from this set (" + (id.warnings.empty() ? std::string() : id.warnings.front()) + ")";
    }
  }
  if (std::all_of(why.begin(), why.end(), [](const std::string& w) { return !w.empty(); })) return;
  std::vector<Candidate> kept;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (why[i].empty()) {
      kept.push_back(std::move(cands[i]));
    } else {
      spdlog::info("select: not offering built-in '{}': {}; name it in --models to rank it anyway",
                   cands[i].model->spec().name, why[i]);
    }
  }
  cands = std::move(kept);
}

int run_select(const SelectArgs& a) {
  const fit::RunConfig cfg = a.read(false);
  const fit::RunConfig& c = cfg;
  const Criterion crit = a.criterion;
  std::vector<Candidate> cands;
  AnalysisSet set;
  std::vector<data::Fold> folds;
  data::SplitSpec split;
  a.agreed([&] {
    if (!c.out.empty() && a.env->rank() == 0) {
      std::vector<std::string> inputs{c.data};
      if (!a.config.empty()) inputs.push_back(a.config);
      io::check_output({c.out, "--out", io::FileKind::result, inputs, a.force});
    }
    const std::vector<std::string> columns = set_columns(c);
    cands = candidates(a, c, columns);
    std::vector<std::string> needed;
    for (const auto& m : cands) needed.insert(needed.end(), m.model->columns_used().begin(), m.model->columns_used().end());
    if (crit == Criterion::extrapolation) split = extrapolation_split(a, c, columns);
    if (crit == Criterion::kfold) split = data::parse_split("kfold:" + std::to_string(a.folds));
    if (!split.column.empty()) needed.push_back(split.column);
    set = load_analysis_set(c, needed);
    // One split for every candidate: k-fold over the configurations of every factor any reads.
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    if (crit == Criterion::extrapolation || crit == Criterion::kfold) folds = data::make_folds(split, *set.rows, needed, c.de.seed);
  });
  score_candidates(cands, folds, set, c, crit, a.search, a.comm());
  if (a.models.empty()) drop_undeterminable(cands, *set.rows);
  std::vector<Candidate> ranked = cands;
  std::stable_sort(ranked.begin(), ranked.end(), [](const Candidate& x, const Candidate& y) {
    return x.determined != y.determined ? x.determined : x.score < y.score;
  });
  if (!std::isfinite(ranked.front().score)) {
    throw DataError("select: every candidate's fit failed on '" + c.data + "' set '" + c.set + "' (the warnings say why)");
  }
  const std::string how = folds.empty() ? "in-sample fit on all " + std::to_string(set.rows->rows()) + " rows"
                                        : "MAPE of held-out rows, split " + split.text();
  int code = 0;
  if (!c.out.empty()) code = write_winner(a, cfg, ranked.front(), set);
  if (a.parallel() && a.env->rank() != 0) return code;
  if (a.json) {
    nlohmann::ordered_json j = {{"best", ranked.front().model->spec().name}, {"criterion", to_string(crit)}, {"how", how},
                                {"data", c.data}, {"set", c.set}, {"rows", set.rows->rows()}};
    j["ranking"] = ranking_json(ranked, crit);
    if (!c.out.empty()) j["result"] = c.out;
    std::cout << j.dump(2) << "\n";
  } else {
    print_table(ranked, to_string(crit), how);
    if (!c.out.empty()) std::printf("wrote %s (the winner, '%s', fitted on every row)\n", c.out.c_str(), ranked.front().model->spec().name.c_str());
  }
  return code;
}

// The command's own options; the fits' are analysis_option_table().
const OptionTable<SelectArgs>& select_options() {
  using A = SelectArgs;
  static const OptionTable<A> t = {
      text_option<A>("config", &A::config, "a YAML file", "YAML config (the keys of configs/fit.yaml)"),
      text_option<A>("models", &A::models, "names or YAML files, comma-separated",
                     "built-in names or YAML files (default: every built-in that fits the set)"),
      enum_option<A>("criterion", &A::criterion, kCriteria, parse_criterion,
                     [](Criterion c) { return to_string(c); }, "how candidates are ranked"),
      whole_option<A>("holdout", &A::holdout, 1, 1000,
                      "extrapolation: how many of the largest values of the scale column are held out"),
      whole_option<A>("folds", &A::folds, 2, 1000, "kfold: number of folds"),
      bool_option<A>("negative_exponents", [](A& a) -> auto& { return a.search.negative_exponents; },
                     "pmnf-search: also Extra-P's negative-exponent building blocks x^(-a/b) (times that fall "
                     "with x: strong scaling)"),
      force_option<A>(&A::force, "replace an existing result file at --out"),
      json_option<A>(&A::json),
  };
  return t;
}

}  // namespace

void add_select_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<SelectArgs>();
  a->env = &env;
  auto* cmd = add_command(app, action,
      "select",
      "Fit every candidate model and rank them. Criteria: extrapolation (default: train below\n"
      "the largest value of the scale column, score = MAPE there), kfold (MAPE over K folds of\n"
      "configurations), aic, bic (in-sample, n ln(mean residual) + penalty per constant).\n"
      "Without --models every built-in whose factors the set has (after --factors) competes.\n"
      "--out writes the winner's fit on every row as a normal result file (docs/validation.md).",
      a, select_options(), run_select);
  a->flags.add(cmd, analysis_option_table(true), fit::RunConfig{});
}

}  // namespace perfit::app
