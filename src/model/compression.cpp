#include "perfit/model/compression.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "perfit/core/assert.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::model {

namespace {

// Row -> configuration id, by the exact bits of the factor values (open addressing on a
// 64-bit hash; a true collision probes on).
class Grouper {
 public:
  explicit Grouper(const std::vector<std::vector<double>>& cols) : cols_(cols) {}

  std::size_t id(std::size_t row) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& c : cols_) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &c[row], sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
      h ^= h >> 31;
    }
    for (;; h = h * 6364136223846793005ULL + 1442695040888963407ULL) {
      const auto [it, fresh] = ids_.try_emplace(h, first_row_.size());
      if (fresh) {
        first_row_.push_back(row);
        return it->second;
      }
      if (same(first_row_[it->second], row)) return it->second;
    }
  }
  const std::vector<std::size_t>& first_rows() const { return first_row_; }

 private:
  bool same(std::size_t a, std::size_t b) const {
    for (const auto& c : cols_) {
      if (std::memcmp(&c[a], &c[b], sizeof(double)) != 0) return false;
    }
    return true;
  }
  const std::vector<std::vector<double>>& cols_;
  std::unordered_map<std::uint64_t, std::size_t> ids_;
  std::vector<std::size_t> first_row_;
};

std::vector<std::vector<double>> factor_values(const data::MeasurementTable& t,
                                               const std::vector<std::string>& factors) {
  std::vector<std::vector<double>> cols;
  for (const auto& f : factors) cols.push_back(t.column(f).to_double());
  return cols;
}

// The configurations in order of first appearance, those of a joint fit's groups together
// (grouped_model.hpp: one indicator column per group), so that a group's constants meet one
// run of rows (projection.hpp evaluates them there only).
std::vector<std::size_t> group_order(const std::vector<std::vector<double>>& cols,
                                     const std::vector<std::string>& factors,
                                     const std::vector<std::size_t>& first_rows) {
  std::vector<std::size_t> order(first_rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<std::size_t> indicators;
  for (std::size_t k = 0; k < factors.size(); ++k) {
    if (is_group_indicator(factors[k])) indicators.push_back(k);
  }
  if (indicators.empty()) return order;
  std::vector<std::size_t> group(first_rows.size(), indicators.size());
  for (std::size_t c = 0; c < first_rows.size(); ++c) {
    for (std::size_t a = 0; a < indicators.size(); ++a) {
      if (cols[indicators[a]][first_rows[c]] != 0.0) {
        group[c] = a;
        break;
      }
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return group[x] < group[y]; });
  return order;
}

}  // namespace

std::size_t count_configurations(const data::MeasurementTable& t,
                                 const std::vector<std::string>& factors) {
  const auto cols = factor_values(t, factors);
  Grouper g(cols);
  for (std::size_t i = 0; i < t.rows(); ++i) g.id(i);
  return g.first_rows().size();
}

CompressedRows compress_rows(const data::MeasurementTable& t,
                             const std::vector<std::string>& factors, const CostOptions& cost,
                             const std::vector<double>& row_weights) {
  PERFIT_ASSERT(cost.residual != Residual::ape, "ape cannot be compressed");
  const std::size_t n = t.rows();
  const auto cols = factor_values(t, factors);
  const std::vector<double> y = t.column(t.target()).to_double();
  const std::vector<double> wcol =
      cost.weight_column.empty() ? std::vector<double>{} : t.column(cost.weight_column).to_double();
  const auto weight_of = [&](std::size_t i) {
    return (wcol.empty() ? 1.0 : wcol[i]) * (row_weights.empty() ? 1.0 : row_weights[i]);
  };

  Grouper g(cols);
  std::vector<std::size_t> id(n);
  for (std::size_t i = 0; i < n; ++i) id[i] = g.id(i);
  const std::size_t m = g.first_rows().size();
  // Per configuration: the weight sum and the weighted sums that place the pseudo-target.
  // (Eigen vectors: three std::vector<double>(m, 0.0) here trip GCC 12's -Wfree-nonheap-object
  // false positive at -O3.)
  Eigen::ArrayXd s0 = Eigen::ArrayXd::Zero(static_cast<Eigen::Index>(m)), s1 = s0, s2 = s0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<Eigen::Index>(id[i]);
    const double w = weight_of(i);
    switch (cost.residual) {
      case Residual::rel_sq:
        s1[c] += w / y[i];
        s2[c] += w / (y[i] * y[i]);
        break;
      case Residual::sq:
        s0[c] += w;
        s1[c] += w * y[i];
        break;
      case Residual::sq_log:
        s0[c] += w;
        s1[c] += w * std::log(y[i]);
        break;
      case Residual::ape:
        break;
    }
  }
  std::vector<double> target(m), weight(m);
  for (std::size_t k = 0; k < m; ++k) {
    const auto c = static_cast<Eigen::Index>(k);
    switch (cost.residual) {
      case Residual::rel_sq:
        target[k] = s1[c] / s2[c];
        weight[k] = s1[c] * s1[c] / s2[c];
        break;
      case Residual::sq:
        target[k] = s1[c] / s0[c];
        weight[k] = s0[c];
        break;
      case Residual::sq_log:
        target[k] = std::exp(s1[c] / s0[c]);
        weight[k] = s0[c];
        break;
      case Residual::ape:
        break;
    }
    if (!(weight[k] > 0.0)) {  // a configuration whose rows all weigh 0: it adds nothing
      weight[k] = 0.0;
      target[k] = 1.0;
    }
  }
  // The constant: each row's residual at its configuration's pseudo-target (the minimum).
  CompressedRows out;
  for (std::size_t i = 0; i < n; ++i) {
    out.offset += weight_of(i) * residual(cost.residual, target[id[i]], y[i]);
    out.weight_sum += weight_of(i);
  }
  const std::vector<std::size_t> order = group_order(cols, factors, g.first_rows());
  for (std::size_t k = 0; k < factors.size(); ++k) {
    std::vector<double> v(m);
    for (std::size_t c = 0; c < m; ++c) v[c] = cols[k][g.first_rows()[order[c]]];
    out.table.add_column(data::Column(factors[k], std::move(v)));
  }
  std::vector<double> target_out(m), weight_out(m);
  for (std::size_t c = 0; c < m; ++c) {
    target_out[c] = target[order[c]];
    weight_out[c] = weight[order[c]];
  }
  const std::string target_name = t.target();
  out.table.add_column(data::Column(target_name, std::move(target_out)));
  out.table.add_column(data::Column(kCompressedWeight, std::move(weight_out)));
  out.table.attributes() = t.attributes();
  out.rows = n;
  out.configurations = m;
  return out;
}

}  // namespace perfit::model
