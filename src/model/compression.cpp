#include "perfit/model/compression.hpp"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>

#include "perfit/core/assert.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::model {

namespace {

// The same bits (NaN payloads and -0.0 told apart); inlined where std::memcmp of a few doubles
// was a library call per row.
bool same_bits(const double* a, const double* b, std::size_t k) {
  for (std::size_t j = 0; j < k; ++j) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, &a[j], sizeof x);
    std::memcpy(&y, &b[j], sizeof y);
    if (x != y) return false;
  }
  return true;
}

// Configuration id by the exact bits of the factor values: open addressing on a 64-bit hash
// (row_ids) in one flat table, linear probing, at most a quarter full; a true collision probes
// on. Keeps each configuration's values, not the rows'. Ids count up from 0 in order of first
// appearance. A row of a 10^9-row store in random configuration order is one probe in a table
// that stays in cache; std::unordered_map's node per entry was a fifth of such a fit.
class Grouper {
 public:
  explicit Grouper(std::size_t factors) : k_(factors), slots_(64) {}

  // values: k_ factor values of one row, h their hash (row_ids).
  std::size_t id(const double* values, std::uint64_t h) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.id_plus_one == 0) {
        s = {h, size_ + 1};
        keys_.insert(keys_.end(), values, values + k_);
        if (4 * (size_ + 1) > slots_.size()) grow();
        return size_++;
      }
      if (s.hash == h && same_bits(&keys_[(s.id_plus_one - 1) * k_], values, k_)) {
        return s.id_plus_one - 1;
      }
    }
  }
  std::size_t size() const { return size_; }
  double key(std::size_t config, std::size_t factor) const { return keys_[config * k_ + factor]; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t id_plus_one = 0;  // 0: empty
  };
  void grow() {
    std::vector<Slot> bigger(2 * slots_.size());
    const std::size_t mask = bigger.size() - 1;
    for (const Slot& s : slots_) {
      if (s.id_plus_one == 0) continue;
      std::size_t i = s.hash & mask;
      while (bigger[i].id_plus_one != 0) i = (i + 1) & mask;
      bigger[i] = s;
    }
    slots_.swap(bigger);
  }

  std::size_t k_, size_ = 0;
  std::vector<Slot> slots_;  // a power of two
  std::vector<double> keys_;
};

// A numeric column as doubles: its own values when it holds doubles (no copy of a chunk of 10^6
// rows), else converted into `held`.
const double* doubles(const data::Column& c, std::vector<double>& held) {
  if (c.type() == data::ColumnType::float64) return c.f64().data();
  held = c.to_double();
  return held.data();
}

// Each row's configuration id in g, in row order (an id equal to g's size before the row is a
// configuration g had not seen). The hashes are taken a column at a time over every row, with
// no chain from one row to the next, and a row like the one before it (a run's per-step log) is
// not looked up again.
// ids and h: the caller's, reused from chunk to chunk (zeroing a chunk's ids each time was 3% of a
// streamed fit).
void row_ids(const data::MeasurementTable& t, const std::vector<std::string>& factors, Grouper& g,
             std::vector<std::size_t>& ids, std::vector<std::uint64_t>& h) {
  const std::size_t n = t.rows(), k = factors.size();
  std::vector<std::vector<double>> held(k);
  std::vector<const double*> cols(k);
  for (std::size_t j = 0; j < k; ++j) cols[j] = doubles(t.column(factors[j]), held[j]);
  constexpr std::uint64_t kSeed = 1469598103934665603ULL;
  h.resize(n);
  ids.resize(n);
  if (k == 0) std::fill(h.begin(), h.end(), kSeed);
  for (std::size_t j = 0; j < k; ++j) {
    const double* c = cols[j];
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &c[i], sizeof bits);
      const std::uint64_t x = ((j == 0 ? kSeed : h[i]) ^ bits) * 1099511628211ULL;
      h[i] = x ^ (x >> 31);
    }
  }
  // The table indexes by the low bits, which the products above fill from the values' low bits
  // only (zero for whole numbers): mixed once more (splitmix64's finaliser), or configurations
  // cluster and a lookup probes on for tens of slots.
  for (std::uint64_t& x : h) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
  }
  std::vector<double> key(k);
  const auto same_as_before = [&](std::size_t i) {
    if (h[i] != h[i - 1]) return false;
    for (const double* c : cols)
      if (!same_bits(&c[i], &c[i - 1], 1)) return false;
    return true;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && same_as_before(i)) {
      ids[i] = ids[i - 1];
      continue;
    }
    for (std::size_t j = 0; j < k; ++j) key[j] = cols[j][i];
    ids[i] = g.id(key.data(), h[i]);
  }
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

// Per configuration, summed as its rows come: s0..s2 place the pseudo-target (the one-pass
// formulas of the header); t0..t2 are the weighted sums of x - kx (x: what the residual squares,
// kx: its first row's) that give K_c = t2 - t1^2/t0 without cancelling; the moments are sums
// about the first row's target and log the same way. One division and at most one log a row.
struct Sums {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  double kx = 0.0, t0 = 0.0, t1 = 0.0, t2 = 0.0;
  double n = 0.0, ky = 0.0, y1 = 0.0, y2 = 0.0, kl = 0.0, l1 = 0.0, l2 = 0.0, inv = 0.0, inv2 = 0.0;
  double min = std::numeric_limits<double>::infinity(), max = -min;
};

struct Compressor::State {
  explicit State(std::size_t factors) : grouper(factors) {}
  Grouper grouper;
  std::vector<Sums> sums;
  std::vector<std::size_t> ids;  // scratch of add(): each row's configuration
  std::vector<std::uint64_t> hashes;
  bool with_moments = false;
  double weight_sum = 0.0;
};

Compressor::Compressor(std::vector<std::string> factors, const CostOptions& cost, bool moments)
    : factors_(std::move(factors)), cost_(cost), state_(std::make_unique<State>(factors_.size())) {
  PERFIT_ASSERT(cost.residual != Residual::ape, "ape cannot be compressed");
  state_->with_moments = moments;
}

Compressor::~Compressor() = default;

std::size_t Compressor::configurations() const { return state_->grouper.size(); }

void Compressor::add(const data::MeasurementTable& t, const std::vector<double>& row_weights) {
  const std::size_t n = t.rows();
  State& s = *state_;
  std::vector<std::size_t>& ids = s.ids;
  row_ids(t, factors_, s.grouper, ids, s.hashes);
  std::vector<double> held_y, held_w;
  const double* y = doubles(t.column(t.target()), held_y);
  const double* wcol =
      cost_.weight_column.empty() ? nullptr : doubles(t.column(cost_.weight_column), held_w);
  const bool logs = s.with_moments || cost_.residual == Residual::sq_log;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = ids[i];
    const bool fresh = c == s.sums.size();
    if (fresh) s.sums.emplace_back();
    Sums& a = s.sums[c];
    const double w = (wcol ? wcol[i] : 1.0) * (row_weights.empty() ? 1.0 : row_weights[i]);
    const double yi = y[i], r = 1.0 / yi, l = logs ? std::log(yi) : 0.0;
    s.weight_sum += w;
    double x = yi, wx = w;
    switch (cost_.residual) {
      case Residual::rel_sq:
        a.s1 += w * r;
        a.s2 += w * r * r;
        wx = w * r * r;
        break;
      case Residual::sq:
        a.s0 += w;
        a.s1 += w * yi;
        break;
      case Residual::sq_log:
        a.s0 += w;
        a.s1 += w * l;
        x = l;
        break;
      case Residual::ape:
        break;
    }
    if (fresh) a.kx = x, a.ky = yi, a.kl = l;
    const double dx = x - a.kx;
    a.t0 += wx;
    a.t1 += wx * dx;
    a.t2 += wx * dx * dx;
    if (!s.with_moments) continue;
    const double dy = yi - a.ky, dl = l - a.kl;
    a.n += 1.0;
    a.y1 += dy;
    a.y2 += dy * dy;
    a.l1 += dl;
    a.l2 += dl * dl;
    a.inv += r;
    a.inv2 += r * r;
    a.min = std::min(a.min, yi);
    a.max = std::max(a.max, yi);
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
    const Sums& a = s.sums[c];
    switch (cost_.residual) {
      case Residual::rel_sq:
        y[c] = a.s1 / a.s2;
        weight[c] = a.s1 * a.s1 / a.s2;
        break;
      case Residual::sq:
        y[c] = a.s1 / a.s0;
        weight[c] = a.s0;
        break;
      case Residual::sq_log:
        y[c] = std::exp(a.s1 / a.s0);
        weight[c] = a.s0;
        break;
      case Residual::ape:
        break;
    }
    if (!(weight[c] > 0.0)) {  // a configuration whose rows all weigh 0: it adds nothing
      weight[c] = 0.0;
      y[c] = 1.0;
    }
    if (a.t0 > 0.0) out.offset += std::max(0.0, a.t2 - a.t1 * a.t1 / a.t0);
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
  if (!s.with_moments) return out;
  ConfigurationMoments& b = out.moments;
  for (const std::size_t c : order) {
    const Sums& a = s.sums[c];
    b.n.push_back(a.n);
    b.mean.push_back(a.ky + a.y1 / a.n);
    b.m2.push_back(std::max(0.0, a.y2 - a.y1 * a.y1 / a.n));
    b.log_mean.push_back(a.kl + a.l1 / a.n);
    b.log_m2.push_back(std::max(0.0, a.l2 - a.l1 * a.l1 / a.n));
    b.inv_sum.push_back(a.inv);
    b.inv2_sum.push_back(a.inv2);
    b.min.push_back(a.min);
    b.max.push_back(a.max);
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
  Grouper g(factors.size());
  std::vector<std::size_t> ids;
  std::vector<std::uint64_t> h;
  row_ids(t, factors, g, ids, h);
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
