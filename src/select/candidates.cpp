#include "perfit/select/candidates.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/job/analysis_set.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/identifiability.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/search.hpp"

namespace perfit::select {

std::string scale_of(const fit::RunConfig& c, const std::vector<std::string>& columns) {
  std::string col = c.scale;
  for (const auto& b : model::parse_factor_bindings(c.factors)) {
    if (col.empty() && b.factor == "p" && !b.column.empty()) col = b.column;
  }
  if (col.empty() && std::find(columns.begin(), columns.end(), "p") != columns.end()) col = "p";
  return col;
}

namespace {

// A naive predictor over the scale column; its stand-in model (from two made-up points) names
// it and the column it reads until each fold computes its own.
Candidate naive_candidate(model::NaiveKind kind, const fit::RunConfig& c,
                          const std::vector<std::string>& columns) {
  const std::string col = scale_of(c, columns);
  if (col.empty()) {
    throw ConfigError(std::string("--models ") + model::naive_word(kind) +
                      " extrapolates along the scale column: pass "
                      "--scale COLUMN or bind p with --factors p=COLUMN");
  }
  Candidate m{model::naive_word(kind),
              std::make_shared<const model::Model>(
                  model::naive_spec(kind, col, {1.0, 2.0}, {1.0, 1.0}), columns),
              {},
              {},
              0.0};
  m.search_columns = {col};
  m.naive = kind;
  return m;
}

// A binding no candidate reads is a typo, as in `perfit fit`; the naive candidates read the
// column p is bound to (their scale column).
void check_bindings_used(const fit::RunConfig& c, const std::vector<Candidate>& cands) {
  for (const auto& b : model::parse_factor_bindings(c.factors)) {
    const bool read = std::any_of(cands.begin(), cands.end(), [&](const Candidate& m) {
      if (m.naive) return b.factor == "p";
      return !m.procedure() && !model::bindings_for(io::load_model(m.word), {b}).empty();
    });
    if (!read) throw ConfigError("--factors binds '" + b.factor + "', which no candidate reads");
  }
}

}  // namespace

// Explicit --models must all bind; the default list keeps the built-ins the set can feed.
std::vector<Candidate> candidates(const std::string& models, bool extrapolation,
                                  const fit::RunConfig& c, const std::vector<std::string>& columns,
                                  const job::SetSource& source) {
  std::vector<Candidate> out;
  if (!models.empty()) {
    for (const auto& word : split_list(models)) {
      model::NaiveKind kind{};
      if (model::parse_naive_word(word, kind)) {
        out.push_back(naive_candidate(kind, c, columns));
        continue;
      }
      std::vector<std::string> cols;
      if (is_search_word(word, cols)) {
        if (cols.empty() && !scale_of(c, columns).empty()) cols.push_back(scale_of(c, columns));
        if (cols.empty())
          throw ConfigError(
              "--models pmnf-search: name its parameter, pmnf-search:COLUMN (or pass --scale)");
        Candidate m{word, search_placeholder(word, cols, columns), {}, {}, 0.0};
        m.search_columns = cols;
        out.push_back(std::move(m));
        continue;
      }
      out.push_back({word, job::bind_model(word, c, columns, false, source), {}, {}, 0.0});
    }
    check_bindings_used(c, out);
    return out;
  }
  for (const auto& spec : io::builtin_models()) {
    const model::ModelSpec bound = model::bind_factors(
        spec, model::bindings_for(spec, model::parse_factor_bindings(c.factors)));
    std::vector<std::string> missing;
    for (const auto& f : model::Model::factors(bound)) {
      if (std::find(columns.begin(), columns.end(), f) == columns.end()) missing.push_back(f);
    }
    if (!missing.empty()) {
      spdlog::info(
          "select: skipping built-in '{}': it reads {}, not columns of the set (bind them with "
          "--factors NAME=COLUMN or NAME=NUMBER)",
          spec.name, join(missing));
      continue;
    }
    out.push_back({spec.name, job::bind_model(spec.name, c, columns, false, source), {}, {}, 0.0});
  }
  // The naive extrapolations compete wherever the criterion is extrapolation: the floor.
  if (extrapolation && !out.empty() && !scale_of(c, columns).empty()) {
    for (const auto kind :
         {model::NaiveKind::ideal, model::NaiveKind::loglog, model::NaiveKind::ideal_fit}) {
      out.push_back(naive_candidate(kind, c, columns));
    }
  }
  if (out.empty()) {
    throw DataError("select: no built-in model can read '" + c.data + "' set '" + c.set +
                    "' (columns: " + join(columns) +
                    "); bind their factors with --factors p=COLUMN,... or pass --models");
  }
  check_bindings_used(c, out);
  return out;
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
    const auto fit = std::find_if(m.fits.rbegin(), m.fits.rend(),
                                  [](const fit::FoldFit& f) { return !f.failed; });
    if (m.procedure() || fit == m.fits.rend()) continue;
    const model::Identifiability id =
        model::check_identifiability(model::Evaluator(*m.model, rows), fit->params);
    const auto n = std::count(id.identifiable.begin(), id.identifiable.end(), false);
    if (n > 0) {
      why[i] = std::to_string(n) + " of its " + std::to_string(m.model->n_params()) +
               " constants cannot be "
               "determined from this set (" +
               (id.warnings.empty() ? std::string() : id.warnings.front()) + ")";
    }
  }
  bool any_kept = false;  // of the fitted models: the procedures are never left out
  for (std::size_t i = 0; i < cands.size(); ++i)
    any_kept = any_kept || (!cands[i].procedure() && why[i].empty());
  if (!any_kept) return;
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

namespace {

// The rows at the largest value of `column`, moved one step further (x_n^2 / x_{n-1}), with
// the numeric columns the candidates read.
data::MeasurementTable one_step_beyond(const std::vector<Candidate>& cands,
                                       const data::MeasurementTable& rows,
                                       const std::string& column) {
  const std::vector<double> distinct = data::distinct_values(rows.column(column));
  const double last = distinct.back(), next = last * last / distinct[distinct.size() - 2];
  const std::vector<double> x = rows.column(column).to_double();
  std::vector<bool> keep(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) keep[i] = x[i] == last;
  const data::MeasurementTable at_last = data::select_rows(rows, keep);
  std::vector<std::string> names{column};
  for (const auto& m : cands)
    names.insert(names.end(), m.model->columns_used().begin(), m.model->columns_used().end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  data::MeasurementTable out;
  for (const auto& n : names) {
    std::vector<double> v = at_last.column(n).to_double();
    if (n == column) std::fill(v.begin(), v.end(), next);
    out.add_column(data::Column(n, std::move(v)));
  }
  return out;
}

// A candidate's predictions there: fitted in-sample on every row, or a naive predictor from them.
Eigen::VectorXd predict_beyond(const Candidate& m, const data::MeasurementTable& rows,
                               const std::string& column, const data::MeasurementTable& beyond) {
  if (m.naive) {
    const model::Model naive(naive_spec_of(*m.naive, column, rows), beyond.column_names());
    return model::Evaluator(naive, beyond).predict(Eigen::VectorXd(0));
  }
  return model::Evaluator(*m.model, beyond).predict(m.fits.front().params);
}

}  // namespace

double held_out_log_rms(const Candidate& m) {
  double ss = 0.0;
  Eigen::Index n = 0;
  for (const auto& f : m.fits) {
    if (f.failed) continue;
    ss += (f.predicted.array() / f.measured.array()).log().square().sum();
    n += f.measured.size();
  }
  return n > 0 ? std::sqrt(ss / static_cast<double>(n)) : std::numeric_limits<double>::quiet_NaN();
}

ChoiceSpread disagreement_spread(const std::vector<Candidate>& ranked,
                                 const data::MeasurementTable& rows, const std::string& column) {
  if (ranked.size() < 2 || data::distinct_values(rows.column(column)).size() < 2) return {};
  const data::MeasurementTable beyond = one_step_beyond(ranked, rows, column);
  const Eigen::VectorXd first = predict_beyond(ranked.front(), rows, column, beyond);
  double sum = 0.0;
  std::size_t n = 0;
  for (std::size_t k = 1; k < ranked.size(); ++k) {
    const Candidate& m = ranked[k];
    if (m.pooled.failed || m.fits.size() != 1 || m.searched()) continue;
    std::size_t configs = 0;
    data::configuration_ids(rows, m.model->columns_used(), configs);
    if (!m.naive && configs < m.model->n_params())
      continue;  // passes through the points: says nothing
    const double d = (predict_beyond(m, rows, column, beyond).array() / first.array()).log().mean();
    if (!std::isfinite(d)) continue;
    sum += d * d;
    ++n;
  }
  if (n == 0) return {};
  return {std::sqrt(sum / static_cast<double>(n)), n,
          "the other " + std::to_string(n) +
              " candidates' disagreement one step beyond the largest " + column +
              " (two scales: nothing to hold out)"};
}

}  // namespace perfit::select
