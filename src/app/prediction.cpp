#include "prediction.hpp"

#include <algorithm>

#include "factor_args.hpp"
#include "result_names.hpp"
#include "perfit/fit/bootstrap.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::app {

namespace {

Interval interval_of(double level, const io::ResultFile& r, const model::Evaluator& ev, const Eigen::VectorXd& pred) {
  Interval out;
  if (level <= 0.0) {
    if (!r.has_bootstrap()) return out;
    out.bounds = fit::prediction_interval(ev, r.bootstrap, r.ci);
    out.level = r.ci;
    out.contains = "the constants' uncertainty only (" + std::to_string(r.bootstrap.front().size()) +
                   " bootstrap refits), not one run's noise: --interval LEVEL adds it";
    return out;
  }
  fit::SpreadParts parts{r.noise_log_sd, r.noise_dof, r.choice_log_sd, r.choice_dof, r.choice_how,
                         r.has_bootstrap() ? r.bootstrap.front().size() : 0};
  const Eigen::VectorXd spread = r.has_bootstrap() ? fit::log_spread(fit::replicate_predictions(ev, r.bootstrap)) : Eigen::VectorXd();
  fit::PredictiveInterval pi = fit::predictive_interval(pred, spread, parts, level);
  out.level = level;
  out.contains = pi.contains;
  out.asked_but_unavailable = !pi.available;
  if (pi.available) out.bounds = fit::PredictionInterval{pi.lo, pi.hi};
  return out;
}

}  // namespace

Prediction predict_rows(const io::ResultFile& r, const std::string& result, const data::MeasurementTable& rows,
                        const std::string& where, bool only_factors, double interval) {
  model::ModelSpec spec = io::parse_model_yaml(r.model_yaml, result + " model_yaml");
  data::MeasurementTable table = ResultNames(r, result).bind(rows, spec, where);
  const std::vector<std::string> needed = model::Model::factors(spec);  // after the names are bound
  std::vector<std::string> given = table.column_names();
  if (!only_factors) {
    std::erase_if(given, [&](const std::string& c) { return std::find(needed.begin(), needed.end(), c) == needed.end(); });
  }
  check_factors(needed, given, spec.name, where);
  table.attributes().clear();  // no target: a prediction-only evaluator
  const model::Model m(spec, table.column_names());
  const model::Evaluator ev(m, table);
  Eigen::VectorXd x(static_cast<Eigen::Index>(r.params.size()));
  for (std::size_t k = 0; k < r.params.size(); ++k) x(static_cast<Eigen::Index>(k)) = r.params[k].value;
  // The evaluator reads `table`: every use of it comes before the table moves into the answer.
  Eigen::VectorXd values = ev.predict(x);
  Eigen::MatrixXd terms = ev.term_values(x);
  Interval iv = interval_of(interval, r, ev, values);
  Prediction p{{}, std::move(values), std::move(terms), m.term_names(), std::move(iv), {},
               RangeGuard(r, model::Model::factors(spec))};
  p.outside.resize(table.rows());
  for (std::size_t i = 0; i < table.rows(); ++i) p.outside[i] = p.guard.check(table, i);
  p.rows = std::move(table);
  return p;
}

}  // namespace perfit::app
