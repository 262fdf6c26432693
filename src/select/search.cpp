#include "perfit/select/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "perfit/core/error.hpp"

namespace perfit::select {

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

bool is_search_word(const std::string& word, std::vector<std::string>& columns) {
  const std::string w = kSearchWord;
  columns.clear();
  if (word == w) return true;
  if (word.rfind(w + ":", 0) != 0) return false;
  std::string rest = word.substr(w.size() + 1);
  for (std::size_t at = 0;;) {
    const std::size_t plus = rest.find('+', at);
    columns.push_back(rest.substr(at, plus == std::string::npos ? std::string::npos : plus - at));
    if (columns.back().empty()) {
      throw ConfigError("--models " + word +
                        ": expected pmnf-search, pmnf-search:COLUMN or pmnf-search:COLUMN+COLUMN");
    }
    if (plus == std::string::npos) break;
    at = plus + 1;
  }
  if (columns.size() > 2) {
    throw ConfigError("--models " + word +
                      ": Extra-P's search takes one or two parameters, found " +
                      std::to_string(columns.size()));
  }
  return true;
}

std::string search_label(const std::vector<std::string>& columns) {
  std::string s = std::string(kSearchWord) + ":";
  for (std::size_t i = 0; i < columns.size(); ++i) s += (i ? "+" : "") + columns[i];
  return s;
}

std::shared_ptr<const model::Model> search_placeholder(
    const std::string& name, const std::vector<std::string>& columns,
    const std::vector<std::string>& set_columns) {
  // Kept by what it is built from: a selection over 10^4 sets of the same columns compiled the
  // same placeholder for each (2% of that run).
  thread_local std::map<std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>,
                        std::shared_ptr<const model::Model>>
      made;
  auto key = std::make_tuple(name, columns, set_columns);
  if (const auto it = made.find(key); it != made.end()) return it->second;
  if (made.size() >= 64) made.clear();
  model::ModelSpec s;
  s.name = name;
  s.origin = "Extra-P's hypothesis search over " + search_label(columns);
  s.expression = "c0";
  s.params = {{"c0", -1.0, 1.0, false}};
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string c = "c" + std::to_string(i + 1);
    s.expression += " + " + c + "*" + columns[i];
    s.params.push_back({c, -1.0, 1.0, false});
  }
  auto m = std::make_shared<const model::Model>(s, set_columns);
  made.emplace(std::move(key), m);
  return m;
}

namespace {

std::vector<std::vector<double>> masked_columns(const std::vector<std::vector<double>>& xs,
                                                const std::vector<bool>* keep) {
  std::vector<std::vector<double>> out;
  for (const auto& x : xs) out.push_back(masked(x, keep));
  return out;
}

std::vector<std::vector<double>> read_columns(const std::vector<std::string>& columns,
                                              const data::MeasurementTable& rows) {
  std::vector<std::vector<double>> xs;
  for (const auto& c : columns) xs.push_back(rows.column(c).to_double());
  return xs;
}

std::vector<double> point(const std::vector<std::vector<double>>& xs, std::size_t i) {
  std::vector<double> p;
  for (const auto& x : xs) p.push_back(x[i]);
  return p;
}

}  // namespace

std::vector<fit::FoldFit> search_folds(const std::vector<std::string>& columns,
                                       const data::MeasurementTable& rows,
                                       const std::vector<data::Fold>& folds,
                                       model::Residual residual, const model::SearchOptions& opt) {
  const std::vector<std::vector<double>> xs = read_columns(columns, rows);
  const std::vector<double> y = rows.column(rows.target()).to_double();
  const auto k_params = static_cast<Eigen::Index>(columns.size() + 1);
  std::vector<fit::FoldFit> out;
  const std::size_t n = std::max<std::size_t>(folds.size(), 1);
  for (std::size_t k = 0; k < n; ++k) {
    const data::Fold* f = folds.empty() ? nullptr : &folds[k];
    fit::FoldFit r;
    r.fold = f ? f->name : "all rows";
    const auto tx = masked_columns(xs, f ? &f->train : nullptr),
               vx = masked_columns(xs, f ? &f->test : nullptr);
    const std::vector<double> ty = masked(y, f ? &f->train : nullptr),
                              vy = masked(y, f ? &f->test : nullptr);
    r.train_rows = ty.size();
    r.test_rows = vy.size();
    r.measured = as_vector(vy);
    try {
      const model::PmnfHypothesis h = model::search_hypothesis(tx, ty, opt);
      r.params = Eigen::VectorXd::Constant(k_params, 0.0);
      r.params(0) = h.c0;
      for (std::size_t t = 0; t < h.terms.size() && t + 1 < static_cast<std::size_t>(k_params);
           ++t) {
        r.params(static_cast<Eigen::Index>(t + 1)) = h.terms[t].coefficient;
      }
      r.train_cost = h.smape;
      std::vector<double> pred;
      for (std::size_t i = 0; i < vy.size(); ++i) pred.push_back(h.eval(point(vx, i)));
      r.predicted = as_vector(pred);
      r.test = model::compute_metrics(r.predicted, r.measured);
      r.test_cost = fit::mean_residual(residual, r.predicted, r.measured);
    } catch (const DataError&) {
      r.failed = true;
      r.params = Eigen::VectorXd::Constant(k_params, std::numeric_limits<double>::quiet_NaN());
      r.predicted = Eigen::VectorXd::Zero(r.measured.size());
      r.train_cost = r.test_cost = std::numeric_limits<double>::infinity();
    }
    out.push_back(std::move(r));
  }
  return out;
}

model::ModelSpec searched_spec(const std::vector<std::string>& columns,
                               const data::MeasurementTable& rows, const model::SearchOptions& opt,
                               model::PmnfHypothesis& found) {
  const std::vector<std::vector<double>> xs = read_columns(columns, rows);
  const std::vector<double> y = rows.column(rows.target()).to_double();
  found = model::search_hypothesis(xs, y, opt);
  double ymax = 0.0;
  double lowest = std::numeric_limits<double>::infinity();  // the hypothesis' least prediction at a
                                                            // measured point
  std::vector<double> tmin(found.terms.size(), std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < y.size(); ++i) {
    ymax = std::max(ymax, std::fabs(y[i]));
    const std::vector<double> p = point(xs, i);
    lowest = std::min(lowest, found.eval(p));
    for (std::size_t t = 0; t < found.terms.size(); ++t) {
      const double b = std::fabs(found.terms[t].basis(p));
      if (b > 0.0) tmin[t] = std::min(tmin[t], b);
    }
  }
  model::ModelSpec s;
  s.name = "pmnf_search";
  s.description = "Extra-P's hypothesis search over " + search_label(columns) + ": " +
                  found.expression(columns);
  s.origin = kSearchWord;
  s.expression = found.expression(columns);
  s.factors = columns;
  const double c = 10.0 * std::max(ymax, 1e-300);
  if (found.constant()) {
    s.params = {{"c0", 0.0, c, false}};
    return s;
  }
  // Least squares on the raw times can take c0 below zero far enough that the smallest
  // measured point is predicted a negative time (a steep c1*p^3*log2(p) whose largest times
  // decide c0 within +-30 s, the smallest time 0.27 s): no time, and a fit refuses it. Then the
  // constant is kept at or above zero, where the data ask for a negative one only within their
  // noise; otherwise the coefficients stay Extra-P's.
  s.params = {{"c0", lowest < 0.0 ? 0.0 : -c, c, false}};
  if (lowest < 0.0)
    s.description += " (c0 >= 0: least squares predicted a negative time at a measured point)";
  for (std::size_t t = 0; t < found.terms.size(); ++t) {
    const double ct =
        c / (std::isfinite(tmin[t]) ? tmin[t] : 1.0);  // the term alone can reach 10x the data
    s.params.push_back({"c" + std::to_string(t + 1), -ct, ct, false});
  }
  return s;
}

}  // namespace perfit::select
