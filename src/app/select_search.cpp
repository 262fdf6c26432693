#include "select_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "perfit/core/error.hpp"

namespace perfit::app {

namespace {

std::vector<double> masked(const std::vector<double>& v, const std::vector<bool>* keep) {
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!keep || (*keep)[i]) out.push_back(v[i]);
  }
  return out;
}

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

}  // namespace

bool is_search_word(const std::string& word, std::string& column) {
  const std::string w = kSearchWord;
  if (word == w) {
    column.clear();
    return true;
  }
  if (word.rfind(w + ":", 0) == 0 && word.size() > w.size() + 1) {
    column = word.substr(w.size() + 1);
    return true;
  }
  return false;
}

std::shared_ptr<const model::Model> search_placeholder(const std::string& column, const std::vector<std::string>& set_columns) {
  model::ModelSpec s;
  s.name = kSearchWord;
  s.origin = "Extra-P's hypothesis search over " + column;
  s.expression = "c0 + c1*" + column;
  s.params = {{"c0", -1.0, 1.0, false}, {"c1", -1.0, 1.0, false}};
  return std::make_shared<const model::Model>(s, set_columns);
}

std::vector<fit::FoldFit> search_folds(const std::string& column, const data::MeasurementTable& rows,
                                       const std::vector<data::Fold>& folds, model::Residual residual) {
  const std::vector<double> x = rows.column(column).to_double(), y = rows.column(rows.target()).to_double();
  std::vector<fit::FoldFit> out;
  const std::size_t n = std::max<std::size_t>(folds.size(), 1);
  for (std::size_t k = 0; k < n; ++k) {
    const data::Fold* f = folds.empty() ? nullptr : &folds[k];
    fit::FoldFit r;
    r.fold = f ? f->name : "all rows";
    const std::vector<double> tx = masked(x, f ? &f->train : nullptr), ty = masked(y, f ? &f->train : nullptr);
    const std::vector<double> vx = masked(x, f ? &f->test : nullptr), vy = masked(y, f ? &f->test : nullptr);
    r.train_rows = tx.size();
    r.test_rows = vx.size();
    r.measured = as_vector(vy);
    try {
      const model::PmnfHypothesis h = model::search_single_parameter(tx, ty);
      r.params.resize(2);
      r.params << h.c0, h.c1;
      r.train_cost = h.smape;
      std::vector<double> pred;
      for (const double v : vx) pred.push_back(h.eval(v));
      r.predicted = as_vector(pred);
      r.test = model::compute_metrics(r.predicted, r.measured);
      r.test_cost = fit::mean_residual(residual, r.predicted, r.measured);
    } catch (const DataError&) {
      r.failed = true;
      r.params = Eigen::VectorXd::Constant(2, std::numeric_limits<double>::quiet_NaN());
      r.predicted = Eigen::VectorXd::Zero(r.measured.size());
      r.train_cost = r.test_cost = std::numeric_limits<double>::infinity();
    }
    out.push_back(std::move(r));
  }
  return out;
}

model::ModelSpec searched_spec(const std::string& column, const data::MeasurementTable& rows,
                               model::PmnfHypothesis& found) {
  const std::vector<double> x = rows.column(column).to_double(), y = rows.column(rows.target()).to_double();
  found = model::search_single_parameter(x, y);
  double ymax = 0.0, tmin = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ymax = std::max(ymax, std::fabs(y[i]));
    if (!found.constant) {
      const double t = std::fabs(found.eval(x[i]) - found.c0) / std::max(std::fabs(found.c1), 1e-300);
      if (t > 0.0) tmin = std::min(tmin, t);
    }
  }
  model::ModelSpec s;
  s.name = "pmnf_search";
  s.description = "Extra-P's single-parameter hypothesis search over " + column + ": " + found.expression(column);
  s.origin = kSearchWord;
  s.expression = found.expression(column);
  s.factors = {column};
  const double c = 10.0 * std::max(ymax, 1e-300);
  if (found.constant) {
    s.params = {{"c0", 0.0, c, false}};
  } else {
    const double c1 = c / (std::isfinite(tmin) ? tmin : 1.0);
    s.params = {{"c0", -c, c, false}, {"c1", -c1, c1, false}};
  }
  return s;
}

}  // namespace perfit::app
