#include "perfit/model/hypothesis_search.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>

#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

struct Block {
  int num, den, log_exp;
};

// Extra-P's default building blocks with log terms (create_default_building_blocks).
const std::vector<Block>& building_blocks() {
  static const std::vector<Block> b = {
      {0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1}, {1, 3, 1}, {1, 4, 2}, {1, 3, 2}, {1, 2, 0},
      {1, 2, 1}, {1, 2, 2}, {2, 3, 0}, {3, 4, 0}, {2, 3, 1}, {3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2},
      {1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0}, {3, 2, 1},
      {3, 2, 2}, {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2}, {9, 4, 0}, {7, 3, 0}, {5, 2, 0},
      {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1}};
  return b;
}

double term(const PmnfHypothesis& h, double x) {
  return std::pow(x, static_cast<double>(h.num) / h.den) * std::pow(std::log2(x), h.log_exp);
}

double smape_term(double predicted, double actual) {
  const double abssum = std::fabs(actual) + std::fabs(predicted);
  return abssum != 0.0 ? 2.0 * std::fabs(predicted - actual) / abssum : 0.0;
}

// Least squares c0 + c1 * term over the points except `skip` (-1: none), as numpy.linalg.lstsq.
void least_squares(PmnfHypothesis& h, const std::vector<double>& x, const std::vector<double>& y, long skip) {
  const long n = static_cast<long>(x.size()) - (skip >= 0 ? 1 : 0);
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  long r = 0;
  for (long i = 0; i < static_cast<long>(x.size()); ++i) {
    if (i == skip) continue;
    a(r, 0) = 1.0;
    a(r, 1) = term(h, x[static_cast<std::size_t>(i)]);
    b(r++) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd c = a.completeOrthogonalDecomposition().solve(b);  // minimum norm, as lstsq
  h.c0 = c(0);
  h.c1 = c(1);
}

}  // namespace

double PmnfHypothesis::eval(double x) const { return constant ? c0 : c0 + c1 * term(*this, x); }

std::string PmnfHypothesis::expression(const std::string& x) const {
  if (constant) return "c0";
  std::string t = "c0 + c1";
  if (num != 0) t += "*" + x + "^(" + std::to_string(num) + "/" + std::to_string(den) + ")";
  if (log_exp != 0) t += "*log2(" + x + ")" + (log_exp == 1 ? "" : "^" + std::to_string(log_exp));
  return t;
}

PmnfHypothesis search_single_parameter(const std::vector<double>& xs, const std::vector<double>& ys) {
  std::map<double, std::pair<double, int>> sums;  // x -> (sum, count): Extra-P models the means
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto& s = sums[xs[i]];
    s.first += ys[i];
    ++s.second;
  }
  if (sums.size() < 3) {
    throw DataError("pmnf-search needs at least 3 distinct values of the parameter, found " + std::to_string(sums.size()));
  }
  std::vector<double> x, y;
  for (const auto& [v, s] : sums) {
    x.push_back(v);
    y.push_back(s.first / s.second);
  }
  const auto n = static_cast<long>(x.size());
  PmnfHypothesis best;
  double mean = 0.0, rss = 0.0;
  for (const double v : y) mean += v / static_cast<double>(n);
  best.c0 = mean;
  for (long i = 0; i < n; ++i) {
    rss += (mean - y[static_cast<std::size_t>(i)]) * (mean - y[static_cast<std::size_t>(i)]);
    best.smape += smape_term(mean, y[static_cast<std::size_t>(i)]) / static_cast<double>(n) * 100.0;
  }
  if (rss == 0.0) return best;
  const bool logs = *std::min_element(x.begin(), x.end()) >= 1.0;
  const double min_y = *std::min_element(y.begin(), y.end());
  for (const Block& b : building_blocks()) {
    if (b.log_exp != 0 && !logs) continue;
    PmnfHypothesis h;
    h.constant = false;
    h.num = b.num;
    h.den = b.den;
    h.log_exp = b.log_exp;
    for (long k = 0; k < n; ++k) {
      least_squares(h, x, y, k);
      if (min_y != 0.0 && std::fabs(h.c0 / min_y) < 0.0005) h.c0 = 0.0;  // clean_constant_coefficient
      const auto ku = static_cast<std::size_t>(k);
      h.smape += smape_term(h.eval(x[ku]), y[ku]) / static_cast<double>(n - 1) * 100.0;
    }
    least_squares(h, x, y, -1);
    double contribution = 0.0;
    for (long i = 0; i < n; ++i) {
      const auto iu = static_cast<std::size_t>(i);
      contribution = std::max(contribution, std::fabs(h.c1 * term(h, x[iu]) / y[iu]));
    }
    const bool valid = std::isfinite(h.c0) && std::isfinite(h.c1) && std::isfinite(h.smape);
    if (valid && h.c1 != 0.0 && contribution >= 0.0005 && h.smape < best.smape) best = h;
  }
  return best;
}

}  // namespace perfit::model
