#include "perfit/model/hypothesis_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "hypothesis_search_detail.hpp"
#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

struct Block {
  int num, den, log_exp;
};

// Extra-P's create_default_building_blocks (with log terms; they are skipped per data set when
// x is too small), in its order: ties keep the first.
std::vector<Block> building_blocks(bool negative) {
  std::vector<Block> b = {{0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0},  {1, 4, 1}, {1, 3, 1},
                          {1, 4, 2}, {1, 3, 2}, {1, 2, 0}, {1, 2, 1},  {1, 2, 2}, {2, 3, 0},
                          {3, 4, 0}, {2, 3, 1}, {3, 4, 1}, {4, 5, 0},  {2, 3, 2}, {3, 4, 2},
                          {1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {5, 4, 0},  {5, 4, 1}, {4, 3, 0},
                          {4, 3, 1}, {3, 2, 0}, {3, 2, 1}, {3, 2, 2},  {5, 3, 0}, {7, 4, 0},
                          {2, 1, 0}, {2, 1, 1}, {2, 1, 2}, {9, 4, 0},  {7, 3, 0}, {5, 2, 0},
                          {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1}};
  if (negative) {
    b.insert(b.end(), {{0, 1, -1},  {0, 1, -2},  {-1, 4, -1}, {-1, 3, -1}, {-1, 4, -2}, {-1, 3, -2},
                       {-1, 2, -1}, {-1, 2, -2}, {-2, 3, -1}, {-3, 4, -1}, {-2, 3, -2}, {-3, 4, -2},
                       {-1, 1, -1}, {-1, 1, -2}, {-5, 4, -1}, {-4, 3, -1}, {-3, 2, -1}, {-3, 2, -2},
                       {-2, 1, -1}, {-2, 1, -2}, {-5, 2, -1}, {-5, 2, -2}, {-3, 1, -1}});
    b.insert(b.end(), {{-1, 4, 0},
                       {-1, 3, 0},
                       {-1, 2, 0},
                       {-2, 3, 0},
                       {-3, 4, 0},
                       {-4, 5, 0},
                       {-1, 1, 0},
                       {-5, 4, 0},
                       {-4, 3, 0},
                       {-3, 2, 0},
                       {-5, 3, 0},
                       {-7, 4, 0},
                       {-2, 1, 0},
                       {-9, 4, 0},
                       {-7, 3, 0},
                       {-5, 2, 0},
                       {-8, 3, 0},
                       {-11, 4, 0},
                       {-3, 1, 0}});
  }
  return b;
}

std::string factor_text(const PmnfFactor& f, const std::string& x) {
  std::string t;
  if (f.num != 0) t = x + "^(" + std::to_string(f.num) + "/" + std::to_string(f.den) + ")";
  if (f.log_exp != 0) {
    if (!t.empty()) t += "*";
    t += "log2(" + x + ")";
    if (f.log_exp < 0) t += "^(" + std::to_string(f.log_exp) + ")";
    if (f.log_exp > 1) t += "^" + std::to_string(f.log_exp);
  }
  return t;
}

}  // namespace

double PmnfTerm::basis(const std::vector<double>& x) const {
  double v = 1.0;
  for (const PmnfFactor& f : factors) {
    const double xv = x[f.param];
    v *= std::pow(xv, static_cast<double>(f.num) / f.den) * std::pow(std::log2(xv), f.log_exp);
  }
  return v;
}

double PmnfHypothesis::eval(const std::vector<double>& x) const {
  double v = c0;
  for (const PmnfTerm& t : terms) v += t.coefficient * t.basis(x);
  return v;
}

std::string PmnfHypothesis::expression(const std::vector<std::string>& names) const {
  std::string e = "c0";
  for (std::size_t k = 0; k < terms.size(); ++k) {
    e += " + c" + std::to_string(k + 1);
    for (const PmnfFactor& f : terms[k].factors) e += "*" + factor_text(f, names[f.param]);
  }
  return e;
}

namespace detail {

double smape_term(double predicted, double actual) {
  const double abssum = std::fabs(actual) + std::fabs(predicted);
  return abssum != 0.0 ? 2.0 * std::fabs(predicted - actual) / abssum : 0.0;
}

Eigen::VectorXd least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  return a.completeOrthogonalDecomposition().solve(b);  // minimum norm, as numpy.linalg.lstsq
}

Points mean_per_point(const std::vector<std::vector<double>>& x, const std::vector<double>& y) {
  std::map<std::vector<double>, std::pair<double, int>> sums;  // point -> (sum, count)
  std::vector<double> p(x.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    for (std::size_t d = 0; d < x.size(); ++d) p[d] = x[d][i];
    auto& s = sums[p];
    s.first += y[i];
    ++s.second;
  }
  Points out;
  for (const auto& [point, s] : sums) {
    out.x.push_back(point);
    out.y.push_back(s.first / s.second);
  }
  return out;
}

PmnfHypothesis constant_model(const Points& pts) {
  PmnfHypothesis h;
  const auto n = static_cast<double>(pts.y.size());
  for (const double v : pts.y) h.c0 += v / n;
  for (const double v : pts.y) h.smape += smape_term(h.c0, v) / n * 100.0;
  return h;
}

double max_contribution(const PmnfTerm& t, const Points& pts) {
  double c = 0.0;
  for (std::size_t i = 0; i < pts.y.size(); ++i)
    c = std::max(c, std::fabs(t.coefficient * t.basis(pts.x[i]) / pts.y[i]));
  return c;
}

void fit_coefficients(PmnfHypothesis& h, const Points& pts, long skip) {
  const long all = static_cast<long>(pts.y.size());
  const long n = all - (skip >= 0 ? 1 : 0);
  Eigen::MatrixXd a(n, static_cast<Eigen::Index>(h.terms.size() + 1));
  Eigen::VectorXd b(n);
  long r = 0;
  for (long i = 0; i < all; ++i) {
    if (i == skip) continue;
    const auto iu = static_cast<std::size_t>(i);
    a(r, 0) = 1.0;
    for (std::size_t k = 0; k < h.terms.size(); ++k)
      a(r, static_cast<Eigen::Index>(k + 1)) = h.terms[k].basis(pts.x[iu]);
    b(r++) = pts.y[iu];
  }
  const Eigen::VectorXd c = least_squares(a, b);
  h.c0 = c(0);
  for (std::size_t k = 0; k < h.terms.size(); ++k)
    h.terms[k].coefficient = c(static_cast<Eigen::Index>(k + 1));
}

bool finite(const PmnfHypothesis& h) {
  bool ok = std::isfinite(h.c0) && std::isfinite(h.smape);
  for (const PmnfTerm& t : h.terms) ok = ok && std::isfinite(t.coefficient);
  return ok;
}

namespace {

// c0 + c1 * f by least squares over the points except `skip`: centred closed form, the same
// solution as the general path to rounding and without its allocations (the search solves this
// n + 1 times per building block). False when f is constant there (rank 1: the general path
// gives the minimum-norm answer).
bool fit_line(const std::vector<double>& f, const std::vector<double>& y, std::size_t skip,
              double& c0, double& c1) {
  double n = 0.0, fm = 0.0, ym = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (i == skip) continue;
    n += 1.0;
    fm += f[i];
    ym += y[i];
  }
  fm /= n;
  ym /= n;
  double sff = 0.0, sfy = 0.0, ff = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (i == skip) continue;
    sff += (f[i] - fm) * (f[i] - fm);
    sfy += (f[i] - fm) * (y[i] - ym);
    ff += f[i] * f[i];
  }
  if (!(sff > 1e-12 * ff)) return false;
  c1 = sfy / sff;
  c0 = ym - c1 * fm;
  return true;
}

void fit_block(PmnfHypothesis& h, const Points& pts, const std::vector<double>& f, long skip) {
  const std::size_t none = pts.y.size();
  if (!fit_line(f, pts.y, skip >= 0 ? static_cast<std::size_t>(skip) : none, h.c0,
                h.terms.front().coefficient)) {
    fit_coefficients(h, pts, skip);
  }
}

const std::vector<Block>& blocks(bool negative) {
  static const std::vector<Block> plain = building_blocks(false),
                                  with_negative = building_blocks(true);
  return negative ? with_negative : plain;
}

// Every building block's value at each x, block after block. The same for every series measured
// at the same x (an Extra-P file's call paths, each fold of them), so the last few tables are
// kept: their pow calls were a tenth of a selection over 10^4 call paths.
const std::vector<double>& basis_table(const std::vector<double>& xs, bool negative) {
  struct Table {
    std::vector<double> xs;
    bool negative;
    std::vector<double> values;
  };
  thread_local std::vector<Table> kept;
  for (const Table& t : kept) {
    if (t.negative == negative && t.xs == xs) return t.values;
  }
  Table t{xs, negative, {}};
  std::vector<double> x(1);
  for (const Block& b : blocks(negative)) {
    const PmnfTerm term{{PmnfFactor{0, b.num, b.den, b.log_exp}}, 0.0};
    for (const double v : xs) {
      x[0] = v;
      t.values.push_back(term.basis(x));
    }
  }
  if (kept.size() >= 8) kept.erase(kept.begin());
  kept.push_back(std::move(t));
  return kept.back().values;
}

}  // namespace

PmnfHypothesis single_parameter(const Points& pts, std::size_t param, const SearchOptions& opt) {
  const auto n = static_cast<long>(pts.y.size());
  PmnfHypothesis best = constant_model(pts);
  double rss = 0.0;
  for (const double v : pts.y) rss += (best.c0 - v) * (best.c0 - v);
  if (rss == 0.0) return best;
  double min_x = pts.x[0][param];
  for (const auto& p : pts.x) min_x = std::min(min_x, p[param]);
  const bool logs = opt.negative_exponents ? min_x > 1.0 : min_x >= 1.0;
  std::vector<double> xs(pts.y.size());
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = pts.x[i][param];
  const std::vector<double>& table = basis_table(xs, opt.negative_exponents);
  std::vector<double> f(pts.y.size());
  // The smallest training value with point k held out: the smallest but at its own place, the
  // second smallest (the same minimum as over the others, without a pass per fold).
  std::size_t lowest = 0;
  for (std::size_t i = 1; i < pts.y.size(); ++i) {
    if (pts.y[i] < pts.y[lowest]) lowest = i;
  }
  double second = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pts.y.size(); ++i) {
    if (i != lowest) second = std::min(second, pts.y[i]);
  }
  PmnfHypothesis h;
  h.terms.resize(1);
  std::size_t block = 0;
  for (const Block& b : blocks(opt.negative_exponents)) {
    const std::size_t at = f.size() * block++;
    if (b.log_exp != 0 && !logs) continue;
    h.c0 = h.smape = 0.0;
    h.terms.front() = PmnfTerm{{PmnfFactor{param, b.num, b.den, b.log_exp}}, 0.0};
    std::copy(table.begin() + static_cast<std::ptrdiff_t>(at),
              table.begin() + static_cast<std::ptrdiff_t>(at + f.size()), f.begin());
    for (long k = 0; k < n; ++k) {
      fit_block(h, pts, f, k);
      const auto ku = static_cast<std::size_t>(k);
      // clean_constant_coefficient against the training points' smallest value
      const double train_min = ku == lowest ? second : pts.y[lowest];
      if (train_min == 0.0 ? std::fabs(h.c0) < 0.0005 : std::fabs(h.c0 / train_min) < 0.0005)
        h.c0 = 0.0;
      // Extra-P adds each held-out point's SMAPE / (training points + 1), i.e. / n: the mean over
      // the n folds, comparable with the constant model's in-sample mean.
      const double predicted = h.c0 + h.terms.front().coefficient * f[ku];
      h.smape += smape_term(predicted, pts.y[ku]) / static_cast<double>(n) * 100.0;
    }
    fit_block(h, pts, f, -1);
    const double c1 = h.terms.front().coefficient;
    double contribution = 0.0;
    for (std::size_t i = 0; i < f.size(); ++i)
      contribution = std::max(contribution, std::fabs(c1 * f[i] / pts.y[i]));
    if (finite(h) && c1 != 0.0 && contribution >= kMinContribution && h.smape < best.smape)
      best = h;
  }
  return best;
}

}  // namespace detail

PmnfHypothesis search_single_parameter(const std::vector<double>& x, const std::vector<double>& y,
                                       const SearchOptions& opt) {
  const detail::Points pts = detail::mean_per_point({x}, y);
  if (pts.y.size() < 3) {
    throw DataError("pmnf-search needs at least 3 distinct values of the parameter, found " +
                    std::to_string(pts.y.size()));
  }
  return detail::single_parameter(pts, 0, opt);
}

}  // namespace perfit::model
