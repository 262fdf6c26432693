#include "perfit/model/compression.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <unordered_map>

#include "perfit/core/assert.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::model {

namespace {

// Configuration id by the exact bits of the factor values (open addressing on a 64-bit hash; a
// true collision probes on). Keeps each configuration's values, not the rows'.
class Grouper {
 public:
  explicit Grouper(std::size_t factors) : k_(factors) {}

  // values: k_ factor values of one row. Fresh: a configuration not seen before.
  std::size_t id(const double* values, bool& fresh) {
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t j = 0; j < k_; ++j) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &values[j], sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
      h ^= h >> 31;
    }
    for (;; h = h * 6364136223846793005ULL + 1442695040888963407ULL) {
      const auto [it, inserted] = ids_.try_emplace(h, size_);
      if (inserted) {
        keys_.insert(keys_.end(), values, values + k_);
        fresh = true;
        return size_++;
      }
      if (std::memcmp(&keys_[it->second * k_], values, k_ * sizeof(double)) == 0) {
        fresh = false;
        return it->second;
      }
    }
  }
  std::size_t size() const { return size_; }
  double key(std::size_t config, std::size_t factor) const { return keys_[config * k_ + factor]; }

 private:
  std::size_t k_, size_ = 0;
  std::unordered_map<std::uint64_t, std::size_t> ids_;
  std::vector<double> keys_;
};

// The rows' factor values, one row after another (what Grouper::id reads).
std::vector<double> row_major(const data::MeasurementTable& t,
                              const std::vector<std::string>& factors) {
  const std::size_t n = t.rows(), k = factors.size();
  std::vector<double> out(n * k);
  for (std::size_t j = 0; j < k; ++j) {
    const std::vector<double> c = t.column(factors[j]).to_double();
    for (std::size_t i = 0; i < n; ++i) out[i * k + j] = c[i];
  }
  return out;
}

// West's weighted update of a mean and its sum of squared deviations.
void welford(double x, double w, double& wsum, double& mean, double& m2) {
  if (!(w > 0.0)) return;
  wsum += w;
  const double d = x - mean;
  mean += (w / wsum) * d;
  m2 += w * d * (x - mean);
}

// The configurations in order of first appearance, those of a joint fit's groups together
// (grouped_model.hpp: one indicator column per group), so that a group's constants meet one
// run of rows (projection.hpp evaluates them there only).
std::vector<std::size_t> group_order(const Grouper& g, const std::vector<std::string>& factors) {
  std::vector<std::size_t> order(g.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<std::size_t> indicators;
  for (std::size_t k = 0; k < factors.size(); ++k) {
    if (is_group_indicator(factors[k])) indicators.push_back(k);
  }
  if (indicators.empty()) return order;
  std::vector<std::size_t> group(g.size(), indicators.size());
  for (std::size_t c = 0; c < g.size(); ++c) {
    for (std::size_t a = 0; a < indicators.size(); ++a) {
      if (g.key(c, indicators[a]) != 0.0) {
        group[c] = a;
        break;
      }
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return group[x] < group[y]; });
  return order;
}

// E f(e) for e ~ N(mean, sd^2), f smooth but for a kink at e = 0 (|e|): 8-point Gauss-Legendre
// on intervals graded toward the kink (2^-12 .. 2^4 standard deviations either side), or on unit
// intervals over +-8 sd when the kink lies beyond them. Within 1e-3 of a sampled mean for
// log(|e| + 4e-4) where Gauss-Hermite missed by 0.14.
template <class F>
double normal_expectation(double mean, double sd, F f) {
  static const auto rule = [] {  // Golub-Welsch: the nodes are the Jacobi matrix's eigenvalues
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(8, 8);
    for (int k = 1; k < 8; ++k) j(k, k - 1) = j(k - 1, k) = k / std::sqrt(4.0 * k * k - 1.0);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(j);
    const Eigen::ArrayXd w = 2.0 * es.eigenvectors().row(0).transpose().array().square();
    return std::pair<Eigen::ArrayXd, Eigen::ArrayXd>(es.eigenvalues().array(), w);
  }();
  const auto over = [&](double a, double b) {  // the standard normal's z in [a, b]
    double e = 0.0;
    for (Eigen::Index k = 0; k < 8; ++k) {
      const double z = 0.5 * (a + b) + 0.5 * (b - a) * rule.first(k);
      e += 0.5 * (b - a) * rule.second(k) * std::exp(-0.5 * z * z) * f(mean + sd * z);
    }
    return e / std::sqrt(2.0 * std::numbers::pi);
  };
  const double kink = -mean / sd;
  double e = 0.0;
  if (std::fabs(kink) >= 8.0) {
    for (int a = -8; a < 8; ++a) e += over(a, a + 1);
    return e;
  }
  for (int k = -12; k < 4; ++k) {
    const double lo = k == -12 ? 0.0 : std::ldexp(1.0, k), hi = std::ldexp(1.0, k + 1);
    e += over(kink + lo, kink + hi) + over(kink - hi, kink - lo);
  }
  return e;
}

template <class V>
std::vector<double> reordered(const V& v, const std::vector<std::size_t>& order) {
  std::vector<double> out(order.size());
  for (std::size_t c = 0; c < order.size(); ++c) out[c] = v[order[c]];
  return out;
}

}  // namespace

// Per configuration: the weighted sums that place the pseudo-target (s0, s1, s2, summed in
// row order as the one-pass formulas of the header), the Welford state of K_c, and the moments.
struct Compressor::State {
  explicit State(std::size_t factors) : grouper(factors) {}
  Grouper grouper;
  std::vector<double> s0, s1, s2, wsum, wmean, wm2;
  bool with_moments = false;
  ConfigurationMoments m;
  double weight_sum = 0.0;

  void grow() {
    for (auto* v : {&s0, &s1, &s2, &wsum, &wmean, &wm2}) v->push_back(0.0);
    if (!with_moments) return;
    for (auto* v : {&m.n, &m.mean, &m.m2, &m.log_mean, &m.log_m2, &m.inv_sum, &m.inv2_sum})
      v->push_back(0.0);
    m.min.push_back(std::numeric_limits<double>::infinity());
    m.max.push_back(-std::numeric_limits<double>::infinity());
  }
  void moments(std::size_t c, double y) {
    double n = m.n[c], same_n = m.n[c];
    welford(y, 1.0, n, m.mean[c], m.m2[c]);
    welford(std::log(y), 1.0, same_n, m.log_mean[c], m.log_m2[c]);
    m.n[c] = n;
    m.inv_sum[c] += 1.0 / y;
    m.inv2_sum[c] += 1.0 / (y * y);
    m.min[c] = std::min(m.min[c], y);
    m.max[c] = std::max(m.max[c], y);
  }
};

Compressor::Compressor(std::vector<std::string> factors, const CostOptions& cost, bool moments)
    : factors_(std::move(factors)), cost_(cost), state_(std::make_unique<State>(factors_.size())) {
  PERFIT_ASSERT(cost.residual != Residual::ape, "ape cannot be compressed");
  state_->with_moments = moments;
}

Compressor::~Compressor() = default;

std::size_t Compressor::configurations() const { return state_->grouper.size(); }

void Compressor::add(const data::MeasurementTable& t, const std::vector<double>& row_weights) {
  const std::size_t n = t.rows(), k = factors_.size();
  const std::vector<double> keys = row_major(t, factors_);
  const std::vector<double> y = t.column(t.target()).to_double();
  const std::vector<double> wcol = cost_.weight_column.empty()
                                       ? std::vector<double>{}
                                       : t.column(cost_.weight_column).to_double();
  State& s = *state_;
  for (std::size_t i = 0; i < n; ++i) {
    bool fresh = false;
    const std::size_t c = s.grouper.id(&keys[i * k], fresh);
    if (fresh) s.grow();
    const double w = (wcol.empty() ? 1.0 : wcol[i]) * (row_weights.empty() ? 1.0 : row_weights[i]);
    s.weight_sum += w;
    switch (cost_.residual) {
      case Residual::rel_sq:
        s.s1[c] += w / y[i];
        s.s2[c] += w / (y[i] * y[i]);
        welford(y[i], w / (y[i] * y[i]), s.wsum[c], s.wmean[c], s.wm2[c]);
        break;
      case Residual::sq:
        s.s0[c] += w;
        s.s1[c] += w * y[i];
        welford(y[i], w, s.wsum[c], s.wmean[c], s.wm2[c]);
        break;
      case Residual::sq_log:
        s.s0[c] += w;
        s.s1[c] += w * std::log(y[i]);
        welford(std::log(y[i]), w, s.wsum[c], s.wmean[c], s.wm2[c]);
        break;
      case Residual::ape:
        break;
    }
    if (s.with_moments) s.moments(c, y[i]);
  }
  rows_ += n;
}

CompressedRows Compressor::finish(const std::string& target,
                                  const data::Attributes& attributes) const {
  const State& s = *state_;
  const std::size_t m = s.grouper.size();
  std::vector<double> y(m), weight(m);
  CompressedRows out;
  for (std::size_t c = 0; c < m; ++c) {
    switch (cost_.residual) {
      case Residual::rel_sq:
        y[c] = s.s1[c] / s.s2[c];
        weight[c] = s.s1[c] * s.s1[c] / s.s2[c];
        break;
      case Residual::sq:
        y[c] = s.s1[c] / s.s0[c];
        weight[c] = s.s0[c];
        break;
      case Residual::sq_log:
        y[c] = std::exp(s.s1[c] / s.s0[c]);
        weight[c] = s.s0[c];
        break;
      case Residual::ape:
        break;
    }
    if (!(weight[c] > 0.0)) {  // a configuration whose rows all weigh 0: it adds nothing
      weight[c] = 0.0;
      y[c] = 1.0;
    }
    out.offset += s.wm2[c];
  }
  const std::vector<std::size_t> order = group_order(s.grouper, factors_);
  for (std::size_t j = 0; j < factors_.size(); ++j) {
    std::vector<double> v(m);
    for (std::size_t c = 0; c < m; ++c) v[c] = s.grouper.key(order[c], j);
    out.table.add_column(data::Column(factors_[j], std::move(v)));
  }
  out.table.add_column(data::Column(target, reordered(y, order)));
  out.table.add_column(data::Column(kCompressedWeight, reordered(weight, order)));
  out.table.attributes() = attributes;
  out.weight_sum = s.weight_sum;
  out.rows = rows_;
  out.configurations = m;
  if (s.with_moments) {
    const ConfigurationMoments& a = s.m;
    ConfigurationMoments& b = out.moments;
    b.n = reordered(a.n, order);
    b.mean = reordered(a.mean, order);
    b.m2 = reordered(a.m2, order);
    b.log_mean = reordered(a.log_mean, order);
    b.log_m2 = reordered(a.log_m2, order);
    b.inv_sum = reordered(a.inv_sum, order);
    b.inv2_sum = reordered(a.inv2_sum, order);
    b.min = reordered(a.min, order);
    b.max = reordered(a.max, order);
  }
  return out;
}

CompressedRows compress_rows(const data::MeasurementTable& t,
                             const std::vector<std::string>& factors, const CostOptions& cost,
                             const std::vector<double>& row_weights) {
  Compressor c(factors, cost);
  c.add(t, row_weights);
  return c.finish(t.target(), t.attributes());
}

std::size_t count_configurations(const data::MeasurementTable& t,
                                 const std::vector<std::string>& factors) {
  const std::vector<double> keys = row_major(t, factors);
  Grouper g(factors.size());
  bool fresh = false;
  for (std::size_t i = 0; i < t.rows(); ++i) g.id(&keys[i * factors.size()], fresh);
  return g.size();
}

MetricSums metric_sums(const Eigen::VectorXd& pred, const ConfigurationMoments& m) {
  MetricSums s;
  for (std::size_t c = 0; c < m.n.size(); ++c) {
    const double p = pred(static_cast<Eigen::Index>(c)), n = m.n[c];
    if (!(n > 0.0)) continue;
    const double lr = std::log(p) - m.log_mean[c];
    s.n += n;
    s.sum_sq += n * (p - m.mean[c]) * (p - m.mean[c]) + m.m2[c];
    s.sum_meas += n * m.mean[c];
    s.sum_meas2 += m.m2[c] + n * m.mean[c] * m.mean[c];
    s.sum_log_ratio_sq += n * lr * lr + m.log_m2[c];
    s.max_rel = std::max({s.max_rel, std::fabs(p / m.min[c] - 1.0), std::fabs(p / m.max[c] - 1.0)});
    // Relative errors e_i = p/y_i - 1: their sum and sum of squares are exact.
    const double mean_e = p * m.inv_sum[c] / n - 1.0;
    const double sd =
        std::sqrt(std::max(0.0, p * p * m.inv2_sum[c] / n - (mean_e + 1.0) * (mean_e + 1.0)));
    double abs_e = std::fabs(mean_e);                // every row on one side of p: exact
    if (p > m.min[c] && p < m.max[c] && sd > 0.0) {  // else as for a normal e of those moments
      const double z = mean_e / sd;
      abs_e = sd * std::sqrt(2.0 / std::numbers::pi) * std::exp(-0.5 * z * z) +
              mean_e * std::erf(z / std::numbers::sqrt2);
    }
    const auto log_abs = [](double e) { return std::log(std::fabs(e) + 4e-4); };
    s.sum_rel += n * abs_e;
    s.sum_log += n * (sd > 0.0 ? normal_expectation(mean_e, sd, log_abs) : log_abs(abs_e));
  }
  return s;
}

}  // namespace perfit::model
