#include "perfit/job/prediction.hpp"

#include <algorithm>
#include <cmath>

#include "perfit/core/text.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/job/factor_args.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/result_names.hpp"
#include "perfit/job/result_report.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::job {

namespace {

// Per row, ln of how far its farthest factor lies outside the measured range (0 inside); empty
// when the result does not know its range.
Eigen::VectorXd beyond_log(const RangeGuard& guard,
                           const std::vector<std::vector<Outside>>& outside) {
  if (!guard.known() || guard.ranges().empty()) return {};
  Eigen::VectorXd out = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(outside.size()));
  for (std::size_t i = 0; i < outside.size(); ++i) {
    for (const auto& o : outside[i])
      out(static_cast<Eigen::Index>(i)) =
          std::max(out(static_cast<Eigen::Index>(i)), std::log(o.ratio));
  }
  return out;
}

Interval interval_of(double level, const io::ResultFile& r, const model::Evaluator& ev,
                     const Eigen::VectorXd& pred, const Eigen::VectorXd& beyond) {
  Interval out;
  if (level <= 0.0) {
    if (!r.has_bootstrap()) return out;
    out.bounds = fit::prediction_interval(ev, r.bootstrap, r.ci);
    out.level = r.ci;
    out.contains = "the constants' uncertainty only (" +
                   std::to_string(r.bootstrap.front().size()) +
                   " bootstrap refits), not one run's noise: --interval LEVEL adds it";
    return out;
  }
  fit::SpreadParts parts{
      r.noise_log_sd,    r.noise_dof,     r.choice_log_sd,
      r.choice_dof,      r.choice_how,    r.has_bootstrap() ? r.bootstrap.front().size() : 0,
      r.choice_step_log, r.choice_growth, r.rows};
  const Eigen::VectorXd spread = r.has_bootstrap()
                                     ? fit::log_spread(fit::replicate_predictions(ev, r.bootstrap))
                                     : Eigen::VectorXd();
  fit::PredictiveInterval pi = fit::predictive_interval(pred, spread, parts, level, beyond);
  out.level = level;
  out.contains = pi.contains;
  const std::vector<std::string> pressed = pressed_bounds(r);
  if (!pressed.empty() && beyond.size() > 0 && beyond.maxCoeff() > 0.0 && r.choice_dof == 0) {
    out.contains +=
        "; not how far the model misses beyond the measured range: " + join(pressed) +
        (pressed.size() > 1 ? " sit" : " sits") +
        " at a bound the data press on, so the model cannot follow "
        "the data there (widen the bounds and refit, or compare models with perfit select)";
  }
  out.asked_but_unavailable = !pi.available;
  if (pi.available) out.bounds = fit::PredictionInterval{pi.lo, pi.hi};
  return out;
}

// A joint fit's prediction beyond a group's own measured range rests on what that group shares
// with the others or draws toward them: the interval says so. "" when no row is there.
std::string borrowed_words(const Groups& g, const model::ModelSpec& spec,
                           const std::vector<std::vector<Outside>>& outside) {
  std::vector<std::string> beyond;
  const Outside* first = nullptr;
  for (const auto& row : outside) {
    for (const auto& o : row) {
      if (o.group.empty() || std::find(beyond.begin(), beyond.end(), o.group) != beyond.end())
        continue;
      beyond.push_back(o.group);
      if (!first) first = &o;
    }
  }
  if (!first) return "";
  std::vector<std::string> shared, pooled;  // base names: a group's copy of c is c__k
  for (const auto& p : spec.params) {
    const auto [base, k] = model::split_group_param(p.name);
    if (k == 0) {
      shared.push_back(base);
      continue;
    }
    const auto at = std::find(g.pooled.begin(), g.pooled.end(), base);
    const auto s = static_cast<std::size_t>(at - g.pooled.begin());
    const bool drawn =
        at != g.pooled.end() && (s >= g.pool_strengths.size() || g.pool_strengths[s] > 0.0);
    if (drawn && std::find(pooled.begin(), pooled.end(), base) == pooled.end())
      pooled.push_back(base);
  }
  std::string lent;
  if (!shared.empty()) lent += "shared: " + join(shared);
  if (!pooled.empty())
    lent += (lent.empty() ? "" : "; ") + std::string("drawn toward the others': ") + join(pooled);
  const std::string range = first->factor + " " + format_g(first->lo) + ".." + format_g(first->hi);
  const bool many = beyond.size() > 1;
  const std::string where =
      many ? "beyond their own measured ranges (" + first->group + ": " + range + ", and " +
                 std::to_string(beyond.size() - 1) + " other group" +
                 (beyond.size() > 2 ? "s" : "") + ")"
           : "beyond " + first->group + "'s own measured range (" + range + ")";
  return "; " + where + (many ? " the predictions rest" : " the prediction rests") +
         " on constants borrowed from the other groups (" +
         (lent.empty() ? std::string("none: every constant is its own, so it extrapolates alone")
                       : lent) +
         "), and the interval does not hold how far " +
         (many ? "those groups depart" : "that group departs") + " from them there";
}

}  // namespace

data::MeasurementTable at_row(const std::string& text, const io::ResultFile& r) {
  const Groups groups = groups_of(r);
  data::MeasurementTable t;
  std::string numbers = groups.empty() ? text : "";
  for (const std::string& item : groups.empty() ? std::vector<std::string>{} : split_list(text)) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq != std::string::npos &&
        std::find(groups.by.begin(), groups.by.end(), name) != groups.by.end()) {
      t.add_column(data::Column(name, std::vector<std::string>{item.substr(eq + 1)}));
    } else {
      numbers += (numbers.empty() ? "" : ",") + item;
    }
  }
  if (numbers.empty() && t.cols() > 0) return t;
  for (const auto& [name, v] : parse_values(numbers, "--at"))
    t.add_column(data::Column(name, std::vector<double>{v}));
  return t;
}

data::MeasurementTable bind_rows(const io::ResultFile& r, const std::string& result,
                                 const data::MeasurementTable& rows, const std::string& where,
                                 bool only_factors, model::ModelSpec& spec, std::string* note) {
  spec = io::parse_model_yaml(r.model_yaml, result + " model_yaml");
  data::MeasurementTable table = ResultNames(r, result).bind(rows, spec, where, note);
  const Groups groups = groups_of(r);
  if (!groups.empty()) {
    for (const auto& col : groups.by) {
      if (table.find(col)) continue;
      throw ConfigError(
          where + ": this joint fit predicts per group: give its column '" + col + "' (" +
          (where == "--at" ? "e.g. --at " + col + "=" + groups.labels.front() + ",...; " : "") +
          "groups: " + join_some(groups.labels) + ")");
    }
    add_group_columns(table, groups, where);
  }
  const std::vector<std::string> needed = model::Model::factors(spec);  // after the names are bound
  std::vector<std::string> given = table.column_names();
  std::erase_if(given, [&](const std::string& c) {
    return std::find(groups.by.begin(), groups.by.end(), c) != groups.by.end() ||
           (!groups.empty() && model::is_group_indicator(c) &&
            std::find(needed.begin(), needed.end(), c) == needed.end());
  });
  if (!only_factors) {
    std::erase_if(given, [&](const std::string& c) {
      return std::find(needed.begin(), needed.end(), c) == needed.end();
    });
  }
  check_factors(needed, given, spec.name, where);
  table.attributes().clear();  // no target: a prediction-only evaluator
  return table;
}

Prediction predict_rows(const io::ResultFile& r, const std::string& result,
                        const data::MeasurementTable& rows, const std::string& where,
                        bool only_factors, double interval) {
  model::ModelSpec spec;
  std::string note;
  data::MeasurementTable table = bind_rows(r, result, rows, where, only_factors, spec, &note);
  const Groups groups = groups_of(r);
  const model::Model m(spec, table.column_names());
  const model::Evaluator ev(m, table);
  Eigen::VectorXd x(static_cast<Eigen::Index>(r.params.size()));
  for (std::size_t k = 0; k < r.params.size(); ++k)
    x(static_cast<Eigen::Index>(k)) = r.params[k].value;
  // The evaluator reads `table`: every use of it comes before the table moves into the answer.
  Eigen::VectorXd values = ev.predict(x);
  Eigen::MatrixXd terms = ev.term_values(x);
  RangeGuard guard(r, model::Model::factors(spec));
  std::vector<std::vector<Outside>> outside(table.rows());
  for (std::size_t i = 0; i < table.rows(); ++i) outside[i] = guard.check(table, i);
  Interval iv = interval_of(interval, r, ev, values, beyond_log(guard, outside));
  if (!groups.empty() && !iv.contains.empty()) iv.contains += borrowed_words(groups, spec, outside);
  Prediction p{{},
               std::move(values),
               std::move(terms),
               m.term_names(),
               std::move(iv),
               std::move(outside),
               std::move(guard),
               {}};
  std::erase_if(table.columns(),
                [](const data::Column& c) { return model::is_group_indicator(c.name()); });
  p.rows = std::move(table);
  p.note = std::move(note);
  return p;
}

}  // namespace perfit::job
