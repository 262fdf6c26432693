#include "perfit/model/identifiability.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "perfit/core/text.hpp"

namespace perfit::model {

Identifiability check_identifiability(const Evaluator& ev, const Eigen::VectorXd& params,
                                      const Reducer& reduce) {
  const Model& m = ev.model();
  const auto k = static_cast<Eigen::Index>(m.n_params());
  Identifiability out;
  out.identifiable.assign(static_cast<std::size_t>(k), true);
  if (k == 0) return out;  // a model of constants only: nothing to determine

  // Distinct configurations of the factors, by a 64-bit hash of each row's values.
  std::vector<const std::vector<double>*> cols;
  std::vector<std::string> constant;
  for (std::size_t c = 0; c < m.columns_used().size(); ++c) {
    cols.push_back(&ev.column_values(c));
    const auto [lo, hi] = std::minmax_element(cols.back()->begin(), cols.back()->end());
    if (lo != cols.back()->end() && *lo == *hi) {
      constant.push_back("'" + m.columns_used()[c] + "' (= " + format_g(*lo) + ")");
    }
  }
  // Counted up to kDistinctCap: the warning needs only "fewer than the params", and an
  // all-distinct 1e6-row set would otherwise spend more time here than in the search.
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t i = 0; i < ev.rows() && seen.size() < kDistinctCap; ++i) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& c : cols) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &(*c)[i], sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
      h ^= h >> 29;
    }
    seen.insert(h);
  }
  double distinct = static_cast<double>(seen.size());

  // J'J of the relative residuals in the unit cube, by central differences.
  Eigen::VectorXd u(k);
  for (Eigen::Index j = 0; j < k; ++j) u(j) = m.to_unit(static_cast<std::size_t>(j), params(j));
  Eigen::MatrixXd J(static_cast<Eigen::Index>(ev.rows()), k);
  Eigen::VectorXd pd(static_cast<Eigen::Index>(ev.rows()));  // reused: no page faults per param
  for (Eigen::Index j = 0; j < k; ++j) {
    Eigen::VectorXd up = u, dn = u;
    up(j) = std::min(1.0, u(j) + 1e-6);
    dn(j) = std::max(0.0, u(j) - 1e-6);
    ev.predict(m.params_from_unit(up), J.col(j));
    ev.predict(m.params_from_unit(dn), pd);
    J.col(j).array() = (J.col(j) - pd).array() * ev.inv_measured().array() / (up(j) - dn(j));
  }
  Eigen::MatrixXd jtj = Eigen::MatrixXd::Zero(k, k);
  jtj.selfadjointView<Eigen::Lower>().rankUpdate(J.transpose());
  jtj = jtj.selfadjointView<Eigen::Lower>();
  // A non-finite prediction (a param at a pole) says nothing: treat as zero effect there.
  for (Eigen::Index i = 0; i < jtj.size(); ++i) {
    if (!std::isfinite(jtj.data()[i])) jtj.data()[i] = 0.0;
  }
  if (reduce) {
    reduce(jtj.data(), static_cast<std::size_t>(jtj.size()));
    reduce(&distinct, 1);  // a sum over slices: an upper bound of the distinct count
  }
  const auto& names = m.param_names();
  const std::string factors = join(m.columns_used());
  if (distinct < static_cast<double>(k)) {
    out.warnings.push_back("only " + format_g(distinct) + " distinct configurations of (" + factors +
                           ") for " + std::to_string(k) + " params: at most " + format_g(distinct) +
                           " of them can be determined; measure more configurations");
  }
  out.distinct_configurations = static_cast<std::size_t>(distinct);
  const double dmax = jtj.diagonal().maxCoeff();
  std::vector<Eigen::Index> live;
  std::vector<std::string> dead;
  for (Eigen::Index j = 0; j < k; ++j) {
    if (jtj(j, j) <= 1e-24 * std::max(dmax, 1e-300) || jtj(j, j) == 0.0) {
      dead.push_back(names[static_cast<std::size_t>(j)]);
      out.identifiable[static_cast<std::size_t>(j)] = false;
    } else {
      live.push_back(j);
    }
  }
  const std::string why = !reduce && !constant.empty()
                              ? "; column " + join(constant) + " is constant in this set"
                              : "";
  if (!dead.empty()) {
    out.warnings.push_back("param(s) " + join(dead) + " have no effect on any prediction at the "
                           "fitted values, so the data cannot determine them" + why);
  }
  if (live.size() > 1) {
    const auto n = static_cast<Eigen::Index>(live.size());
    Eigen::MatrixXd c(n, n);
    for (Eigen::Index a = 0; a < n; ++a) {
      for (Eigen::Index b = 0; b < n; ++b) {
        c(a, b) = jtj(live[static_cast<std::size_t>(a)], live[static_cast<std::size_t>(b)]) /
                  std::sqrt(jtj(live[static_cast<std::size_t>(a)], live[static_cast<std::size_t>(a)]) *
                            jtj(live[static_cast<std::size_t>(b)], live[static_cast<std::size_t>(b)]));
      }
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(c);
    for (Eigen::Index e = 0; e < n; ++e) {
      if (es.eigenvalues()(e) > 1e-10) continue;
      std::vector<std::string> group;
      for (Eigen::Index a = 0; a < n; ++a) {
        if (std::abs(es.eigenvectors()(a, e)) > 0.2) {
          const auto j = static_cast<std::size_t>(live[static_cast<std::size_t>(a)]);
          group.push_back(names[j]);
          out.identifiable[j] = false;
        }
      }
      out.warnings.push_back("params " + join(group) + " trade off against each other: one "
                             "combination of them is not determined by the data" + why);
    }
  }
  return out;
}

}  // namespace perfit::model
