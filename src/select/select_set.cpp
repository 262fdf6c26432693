#include "perfit/select/select_set.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/options_yaml.hpp"
#include "perfit/model/grouped_model.hpp"
#include "perfit/select/joint.hpp"
#include "perfit/select/ladder.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/search.hpp"

namespace perfit::select {

const char* to_string(Criterion c) {
  switch (c) {
    case Criterion::extrapolation:
      return "extrapolation";
    case Criterion::kfold:
      return "kfold";
    case Criterion::aic:
      return "aic";
    case Criterion::bic:
      return "bic";
  }
  return "?";
}

const std::vector<Criterion> kCriteria{Criterion::extrapolation, Criterion::kfold, Criterion::aic,
                                       Criterion::bic};

Criterion parse_criterion(const std::string& s) {
  for (const Criterion c : kCriteria) {
    if (s == to_string(c)) return c;
  }
  throw ConfigError("found '" + s + "', expected one of extrapolation, kfold, aic, bic");
}

const OptionTable<SelectArgs>& select_choice_options() {
  using A = SelectArgs;
  static const OptionTable<A> t = {
      text_option<A>(
          "models", [](A & a) -> auto& { return a.models; }, "names or YAML files, comma-separated",
          "built-in names or YAML files (default: every built-in that fits the set)"),
      enum_option<A>(
          "criterion", [](A & a) -> auto& { return a.criterion; }, kCriteria, parse_criterion,
          [](Criterion c) { return to_string(c); }, "how candidates are ranked"),
      whole_option<A>(
          "holdout", [](A & a) -> auto& { return a.holdout; }, 0, 1000,
          "extrapolation: 0 predicts every value of the scale column from the third smallest up "
          "from the "
          "smaller ones (rolling origin); K holds out the K largest together"),
      whole_option<A>(
          "folds", [](A & a) -> auto& { return a.folds; }, 2, 1000, "kfold: number of folds"),
      bool_option<A>(
          "negative_exponents", [](A & a) -> auto& { return a.search.negative_exponents; },
          "pmnf-search: also Extra-P's negative-exponent building blocks x^(-a/b) (times that fall "
          "with x: strong scaling)"),
      bool_option<A>(
          "result_files", [](A & a) -> auto& { return a.result_files; },
          "over many sets (a glob in --set, a batch's select: entry): also each winner as its own "
          "result "
          "file, DIR/<set path, / -> __>__<model>.h5, beside DIR/selection.h5"),
  };
  return t;
}

void apply_select_yaml(const std::string& yaml, const std::string& where, SelectArgs& a) {
  for (const auto& key_text : io::read_options_yaml(yaml, where)) {
    // Not a structured binding: lambdas cannot capture those before clang 16.
    const std::string& key = key_text.first;
    const std::string& text = key_text.second;
    const auto& table = select_choice_options();
    const auto it =
        std::find_if(table.begin(), table.end(), [&](const auto& o) { return o.key == key; });
    if (it == table.end()) {
      std::string keys;
      for (const auto& o : table) keys += (keys.empty() ? "" : ", ") + o.key;
      throw ConfigError(where + ": unknown key '" + key + "' (expected one of: " + keys + ")");
    }
    try {
      // A YAML list of models reads as "a;b": the flag's comma-separated form.
      std::string value = text;
      if (key == "models") std::replace(value.begin(), value.end(), ';', ',');
      it->parse(a, value);
    } catch (const ConfigError& e) {
      throw ConfigError(where + " key '" + key + "': " + e.what());
    }
  }
}

std::string select_choice_text(const SelectArgs& a) {
  std::string s;
  for (const auto& o : select_choice_options()) s += o.key + "=" + o.format(a) + "\n";
  return s;
}

namespace {

// The K largest values of the scale column.
data::SplitSpec extrapolation_split(const SelectArgs& a, const fit::RunConfig& c,
                                    const std::vector<std::string>& columns) {
  const std::string col = scale_of(c, columns);
  if (col.empty()) {
    throw ConfigError(
        "select --criterion extrapolation needs the scale column: pass --scale COLUMN "
        "(e.g. --scale n_accelerators), or bind p with --factors p=COLUMN");
  }
  data::SplitSpec s;
  s.kind = a.holdout == 0 ? data::SplitKind::forward : data::SplitKind::scale;
  s.column = col;
  s.k = a.holdout;
  return s;
}

double score_of(const Candidate& m, Criterion crit) {
  if (m.pooled.failed) return std::numeric_limits<double>::infinity();
  if (crit == Criterion::extrapolation || crit == Criterion::kfold) return m.pooled.metrics.mape;
  const double n = static_cast<double>(m.pooled.rows), k = static_cast<double>(m.model->n_params());
  const double fit_term = n * std::log(std::max(m.pooled.cost, 1e-300));
  return fit_term + (crit == Criterion::aic ? 2.0 * k : k * std::log(n));
}

// Extra-P's search needs three points: on a rolling origin it is scored on the folds that train
// on at least three scales (the last fold when none does). Measured in
// bench/extrapolation_bench.py, dropping the two-scale folds for every candidate made the
// choice worse (pooled median error 4.46% against 4.35%) and the intervals narrower (79% of
// 90% intervals covered against 84%): those folds are the ones the fitted models are ranked on.
void keep_three_scale_origins(std::vector<data::Fold>& folds, const data::MeasurementTable& rows,
                              const std::string& column) {
  const std::vector<double> x = rows.column(column).to_double();
  std::vector<data::Fold> kept;
  for (auto& f : folds) {
    std::vector<double> seen;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (f.train[i] && std::find(seen.begin(), seen.end(), x[i]) == seen.end())
        seen.push_back(x[i]);
    }
    if (seen.size() >= 3) kept.push_back(std::move(f));
  }
  if (!kept.empty())
    folds = std::move(kept);
  else if (folds.size() > 1)
    folds.erase(folds.begin(), folds.end() - 1);
}

// A candidate is scored on the folds whose training rows hold at least as many distinct
// configurations (of the factors it reads) as it has constants: on the others it can pass
// through its training points and say nothing of the next scale (USL on two scales). With no
// such fold it is undetermined and ranks after every determined one. Measured
// (docs/selection.md): scoring USL on every fold left it undetermined on every series, where
// it is the true model of the contention family (4.4% against Amdahl's 18% at 5 scales).
void keep_determined_folds(Candidate& m, const std::vector<data::Fold>& folds,
                           const data::MeasurementTable& rows) {
  if (m.searched() || folds.empty() || m.fits.size() != folds.size()) return;
  std::vector<fit::FoldFit> kept;
  for (std::size_t k = 0; k < folds.size(); ++k) {
    std::size_t configs = 0;
    data::configuration_ids(data::select_rows(rows, folds[k].train), m.model->columns_used(),
                            configs);
    if (configs >= m.model->n_params()) kept.push_back(m.fits[k]);
  }
  m.determined = !kept.empty();
  if (m.determined) m.fits = std::move(kept);
}

// Every candidate's folds (or in-sample fit) spread over the ranks, then its score.
void score_candidates(std::vector<Candidate>& cands, const std::vector<data::Fold>& folds,
                      const job::AnalysisSet& set, const fit::RunConfig& c, Criterion crit,
                      const model::SearchOptions& search, const std::string& forward_column,
                      MPI_Comm comm) {
  std::vector<fit::FoldJob> jobs;
  for (const auto& m : cands) {
    if (m.procedure()) continue;  // computed below, on every rank (cheap)
    const fit::FitProblem p{m.model,    set.rows, c.cost,      {},     c.threads,
                            c.compress, true,     c.separable, c.scale};
    const auto prepare =
        m.joint ? job::fold_recipe(*m.joint, c) : std::function<void(fit::FitProblem&)>();
    if (folds.empty()) jobs.push_back({p, nullptr, prepare});
    for (const auto& f : folds) jobs.push_back({p, &f, prepare});
  }
  // A line per fold only where folds take long enough to wait for (the ranking says the rest).
  constexpr std::size_t kFoldLinesFromRows = 100'000;
  const std::vector<fit::FoldFit> fits =
      fit::fit_folds(jobs, c.search(), comm, set.rows->rows() >= kFoldLinesFromRows);
  const std::size_t per = std::max<std::size_t>(folds.size(), 1);
  std::size_t next = 0;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].naive) {
      cands[i].fits = naive_folds(*cands[i].naive, cands[i].search_columns.front(), *set.rows,
                                  folds, c.cost.residual);
    } else if (!cands[i].searched()) {
      cands[i].fits.assign(fits.begin() + static_cast<std::ptrdiff_t>(next),
                           fits.begin() + static_cast<std::ptrdiff_t>(next + per));
      next += per;
    } else {
      std::vector<data::Fold> own = folds;
      if (!forward_column.empty()) keep_three_scale_origins(own, *set.rows, forward_column);
      cands[i].fits =
          search_folds(cands[i].search_columns, *set.rows, own, c.cost.residual, search);
      cands[i].found_spec =
          searched_spec(cands[i].search_columns, *set.rows, search, cands[i].found);
    }
    keep_determined_folds(cands[i], folds, *set.rows);
    cands[i].pooled = fit::pool(cands[i].fits, c.cost.residual);
    cands[i].score = score_of(cands[i], crit);
  }
}

// Scored candidates first (failed ones last), determined before undetermined, then by score;
// then with two scales the prior first, with held-out folds the simplest adequate model
// (ladder.hpp).
std::vector<Candidate> rank(std::vector<Candidate> ranked, bool few_scales, bool held_out,
                            const data::MeasurementTable& rows, const std::string& scale,
                            bool joint) {
  std::stable_sort(ranked.begin(), ranked.end(), [](const Candidate& x, const Candidate& y) {
    const bool fx = !std::isfinite(x.score), fy = !std::isfinite(y.score);
    if (fx != fy) return fy;
    return x.determined != y.determined ? x.determined : x.score < y.score;
  });
  // The prior and the ladder read one series' scaling; a joint selection's rows are many.
  if (few_scales && !joint) prefer_prior(ranked, rows, scale);
  if (!few_scales && held_out && !joint) prefer_simplest_adequate(ranked, rows, scale);
  Candidate* first = ranked.empty() ? nullptr : &ranked.front();
  if (first && first->why.empty() &&
      std::isfinite(first->score)) {  // the score decided: say against what
    first->why = "the lowest score, " + format_g(first->score, 4);
    if (ranked.size() > 1 && std::isfinite(ranked[1].score)) {
      first->why += " against " + ranked[1].label() + "'s " + format_g(ranked[1].score, 4);
    }
  }
  return ranked;
}

}  // namespace

nlohmann::ordered_json hypothesis_json(const Candidate& m) {
  nlohmann::ordered_json h = {{"expression", m.found.expression(m.search_columns)},
                              {"c0", m.found.c0}};
  for (std::size_t t = 0; t < m.found.terms.size(); ++t)
    h["c" + std::to_string(t + 1)] = m.found.terms[t].coefficient;
  h[m.found.leave_one_out ? "loo_smape" : "smape"] = m.found.smape;
  return h;
}

nlohmann::ordered_json ranking_json(const std::vector<Candidate>& ranked, Criterion crit) {
  nlohmann::ordered_json r = nlohmann::ordered_json::array();
  for (const auto& m : ranked) {
    const auto& x = m.pooled.metrics;
    nlohmann::ordered_json e = {
        {"model", m.model->spec().name},
        {"source", m.word},
        {"score", std::isfinite(m.score) ? nlohmann::ordered_json(m.score) : nullptr},
        {"params", m.model->n_params()},
        {"failed", m.pooled.failed},
        {"determined", m.determined}};
    if (m.joint) e["kinds"] = m.kinds;
    if (!m.why.empty()) e["why"] = m.why;
    if (m.searched()) e["hypothesis"] = hypothesis_json(m);
    if (!m.pooled.failed) {
      e["metrics"] = {{"mape", x.mape},
                      {"gmae", x.gmae},
                      {"rmse", x.rmse},
                      {"r2", x.r2},
                      {"max_rel_err", x.max_rel_err}};
      e[crit == Criterion::aic || crit == Criterion::bic ? "in_sample_cost" : "held_out_cost"] =
          m.pooled.cost;
    }
    r.push_back(e);
  }
  return r;
}

Selection select_set(const SelectArgs& a, const fit::RunConfig& c, const Guard& guard,
                     MPI_Comm comm) {
  const Criterion crit = a.criterion;
  std::vector<Candidate> cands;
  Selection s;
  guard([&] {
    const std::vector<std::string> columns = job::set_columns(c, a.source);
    cands = candidates(a.models, a.criterion == Criterion::extrapolation, c, columns, a.source);
    std::vector<std::string> needed;
    for (const auto& m : cands)
      needed.insert(needed.end(), m.model->columns_used().begin(), m.model->columns_used().end());
    if (crit == Criterion::extrapolation) s.split = extrapolation_split(a, c, columns);
    if (crit == Criterion::kfold) s.split = data::parse_split("kfold:" + std::to_string(a.folds));
    if (!s.split.column.empty()) needed.push_back(s.split.column);
    std::vector<std::string> load = needed;
    for (const auto& col : split_list(c.by)) {  // a missing one is named by joint_candidates
      if (std::find(columns.begin(), columns.end(), col) != columns.end()) load.push_back(col);
    }
    s.set = job::load_analysis_set(c, load, a.source);
    if (!c.by.empty()) {  // configurations of different groups differ
      cands = joint_candidates(std::move(cands), !a.models.empty(), c, s.set);
      for (std::size_t g = 1; g <= cands.front().joint->groups.labels.size(); ++g)
        needed.push_back(model::group_indicator(g));
    }
    // One split for every candidate: k-fold over the configurations of every factor any reads.
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    if (crit == Criterion::extrapolation &&
        data::distinct_values(s.set.rows->column(s.split.column)).size() <
            std::max<std::size_t>(a.holdout, 1) + 2) {
      if (!c.by.empty()) {
        throw DataError("select --by: '" + c.data + "' set '" + c.set + "' has too few values of " +
                        s.split.column +
                        " to validate an extrapolation on; use --criterion kfold, aic or bic");
      }
      s.few_scales = true;  // nothing to validate an extrapolation on: chosen by the prior
    } else if (crit == Criterion::extrapolation || crit == Criterion::kfold) {
      s.folds = data::make_folds(s.split, *s.set.rows, needed, c.de.seed);
    }
  });
  score_candidates(cands, s.folds, s.set, c, crit, a.search,
                   s.split.kind == data::SplitKind::forward ? s.split.column : "", comm);
  if (a.models.empty() && c.by.empty()) drop_undeterminable(cands, *s.set.rows);
  s.ranked =
      rank(cands, s.few_scales, !s.folds.empty(), *s.set.rows, s.split.column, !c.by.empty());
  if (!std::isfinite(s.ranked.front().score)) {
    throw DataError("select: every candidate's fit failed on '" + c.data + "' set '" + c.set +
                    "' (the warnings say why)");
  }
  const std::size_t scales =
      s.few_scales ? data::distinct_values(s.set.rows->column(s.split.column)).size() : 0;
  s.how = s.few_scales ? "only " + std::to_string(scales) + " distinct values of " +
                             s.split.column + ", too few to validate an extrapolation: the prior " +
                             s.ranked.front().word + " first"
          : s.folds.empty() ? "in-sample fit on all " + std::to_string(s.set.rows->rows()) + " rows"
                            : "MAPE of held-out rows, split " + s.split.text();
  return s;
}

}  // namespace perfit::select
