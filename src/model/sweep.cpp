#include "perfit/model/sweep.hpp"

#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::model {

std::vector<double> doubling_sweep(double lo, double hi) {
  if (!(lo > 0.0 && hi > lo && std::isfinite(hi))) {
    throw ConfigError("a sweep needs 0 < LO < HI, got " + format_g(lo) + ".." + format_g(hi));
  }
  std::vector<double> x;
  for (double v = lo; v <= hi * (1 + 1e-12); v *= 2.0) x.push_back(v);
  if (x.back() < hi * (1 - 1e-12)) x.push_back(hi);
  return x;
}

namespace {

std::size_t dominant(const Eigen::MatrixXd& share, Eigen::Index i) {
  Eigen::Index k = 0;
  share.row(i).maxCoeff(&k);
  return static_cast<std::size_t>(k);
}

}  // namespace

SweepReport analyse_sweep(const Evaluator& ev, const Eigen::VectorXd& params,
                          const std::string& factor, const std::vector<double>& x,
                          double threshold) {
  SweepReport r;
  r.factor = factor;
  r.x = x;
  r.threshold = threshold;
  r.terms = ev.model().term_names();
  const Eigen::VectorXd pred = ev.predict(params);
  const Eigen::MatrixXd terms = ev.term_values(params);
  const auto n = static_cast<Eigen::Index>(x.size());
  r.share.resize(n, terms.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(std::isfinite(pred(i)) && pred(i) > 0.0)) {
      throw DataError("the model predicts " + format_g(pred(i)) + " at " + factor + "=" +
                      format_g(x[static_cast<std::size_t>(i)]) +
                      "; a sweep needs times that are finite and > 0");
    }
    r.time.push_back(pred(i));
    r.share.row(i) = terms.row(i) / pred(i);
    r.efficiency.push_back(pred(0) * x.front() / (pred(i) * x[static_cast<std::size_t>(i)]));
    if (r.efficiency.back() >= threshold) r.last_efficient_x = x[static_cast<std::size_t>(i)];
    if (i == 0 || pred(i) < r.best_time) {
      r.best_time = pred(i);
      r.best_x = x[static_cast<std::size_t>(i)];
    }
  }
  // Where the largest term changes: the two terms are equal where their difference, linear in
  // log(x) between the two points, crosses zero.
  for (Eigen::Index i = 1; i < n; ++i) {
    const std::size_t a = dominant(r.share, i - 1), b = dominant(r.share, i);
    if (a == b) continue;
    const auto ia = static_cast<Eigen::Index>(a), ib = static_cast<Eigen::Index>(b);
    const double d0 = terms(i - 1, ia) - terms(i - 1, ib), d1 = terms(i, ia) - terms(i, ib);
    const double l0 = std::log(x[static_cast<std::size_t>(i - 1)]),
                 l1 = std::log(x[static_cast<std::size_t>(i)]);
    const double t = d0 == d1 ? 0.5 : d0 / (d0 - d1);
    r.crossovers.push_back({r.terms[a], r.terms[b], std::exp(l0 + t * (l1 - l0))});
  }
  return r;
}

}  // namespace perfit::model
