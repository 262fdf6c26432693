#include "perfit/model/identifiability.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <unordered_set>

#include "perfit/core/assert.hpp"
#include "perfit/core/text.hpp"

namespace perfit::model {

namespace {

// The constant columns (by index in columns_used) that cause a param's lack of effect: with the
// column moved off its value (v -> 2v, 0 -> 1) on the first rows, the param moves a prediction.
// p = 1 kills c*log2(p) and c*(p-1)/p; epochs = 1 kills nothing, so it is not named.
std::vector<std::size_t> causes(const Evaluator& ev, const Eigen::VectorXd& params,
                                Eigen::Index param, const std::vector<std::size_t>& constant) {
  const Model& m = ev.model();
  const std::size_t n = std::min<std::size_t>(ev.rows(), 16);
  std::vector<std::size_t> out;
  for (const std::size_t c : constant) {
    data::MeasurementTable t;
    for (std::size_t j = 0; j < m.columns_used().size(); ++j) {
      std::vector<double> v(ev.column_values(j).begin(),
                            ev.column_values(j).begin() + static_cast<std::ptrdiff_t>(n));
      if (j == c)
        for (double& x : v) x = x == 0.0 ? 1.0 : 2.0 * x;
      t.add_column(data::Column(m.columns_used()[j], std::move(v)));
    }
    const Evaluator moved(m, t);
    Eigen::VectorXd up = params, dn = params;
    const auto& spec = m.spec().params[static_cast<std::size_t>(param)];
    const double step = 1e-3 * (spec.hi - spec.lo);
    up(param) = std::min(spec.hi, params(param) + step);
    dn(param) = std::max(spec.lo, params(param) - step);
    const Eigen::VectorXd a = moved.predict(up), b = moved.predict(dn);
    if (((a - b).array().abs() > 1e-12 * a.array().abs().max(1e-300)).any()) out.push_back(c);
  }
  return out;
}

// The params linked through J'J (a nonzero entry), in components: a joint fit's groups touch
// disjoint rows, so J'J is block diagonal, and 100 groups' 6x6 blocks decompose in microseconds
// where the whole 600x600 matrix took 0.12 s (its eigenvectors the same, block by block).
std::vector<std::vector<Eigen::Index>> linked(const Eigen::MatrixXd& jtj,
                                              const std::vector<Eigen::Index>& live) {
  std::vector<std::size_t> root(live.size());
  std::iota(root.begin(), root.end(), std::size_t{0});
  const auto find = [&](std::size_t a) {
    while (root[a] != a) a = root[a] = root[root[a]];
    return a;
  };
  for (std::size_t a = 0; a < live.size(); ++a) {
    for (std::size_t b = a + 1; b < live.size(); ++b) {
      if (jtj(live[a], live[b]) != 0.0) root[find(b)] = find(a);
    }
  }
  std::vector<std::vector<Eigen::Index>> out;
  std::vector<std::size_t> slot(live.size(), live.size());
  for (std::size_t a = 0; a < live.size(); ++a) {
    std::size_t& s = slot[find(a)];
    if (s == live.size()) {
      s = out.size();
      out.emplace_back();
    }
    out[s].push_back(live[a]);
  }
  return out;
}

// Groups of params whose combination the data cannot determine: the near-null eigenvectors of
// J'J's correlation matrix over the params that have an effect, component by component.
void name_trade_offs(const Eigen::MatrixXd& jtj, const std::vector<Eigen::Index>& live,
                     const std::vector<std::string>& names, const std::string& why,
                     Identifiability& out) {
  if (live.size() < 2) return;
  const auto n = static_cast<Eigen::Index>(live.size());
  Eigen::MatrixXd c(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b) {
      c(a, b) =
          jtj(live[static_cast<std::size_t>(a)], live[static_cast<std::size_t>(b)]) /
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
    out.warnings.push_back("params " + join(group) +
                           " trade off against each other: one "
                           "combination of them is not determined by the data" +
                           why);
  }
}

// Distinct configurations of the factors, by a 64-bit hash of each row's values, counted up
// to kDistinctCap: the warning needs only "fewer than the params", and an all-distinct 1e6-row
// set would otherwise spend more time here than in the search.
double count_distinct(const std::vector<const std::vector<double>*>& cols, std::size_t rows) {
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t i = 0; i < rows && seen.size() < kDistinctCap; ++i) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& c : cols) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &(*c)[i], sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
      h ^= h >> 29;
    }
    seen.insert(h);
  }
  return static_cast<double>(seen.size());
}

// J'J of the relative residuals in the unit cube, by central differences (the columns shared
// among processes when they are).
Eigen::MatrixXd unit_jtj(const Evaluator& ev, const Eigen::VectorXd& params,
                         const ColumnSplit& columns) {
  const Model& m = ev.model();
  const auto k = static_cast<Eigen::Index>(m.n_params());
  Eigen::VectorXd u(k);
  for (Eigen::Index j = 0; j < k; ++j) u(j) = m.to_unit(static_cast<std::size_t>(j), params(j));
  Eigen::MatrixXd J(static_cast<Eigen::Index>(ev.rows()), k);
  Eigen::VectorXd pd(static_cast<Eigen::Index>(ev.rows()));  // reused: no page faults per param
  for (Eigen::Index j = 0; j < k; ++j) {
    if (!columns.mine(j)) {
      J.col(j).setZero();
      continue;
    }
    Eigen::VectorXd up = u, dn = u;
    up(j) = std::min(1.0, u(j) + 1e-6);
    dn(j) = std::max(0.0, u(j) - 1e-6);
    ev.predict(m.params_from_unit(up), J.col(j));
    ev.predict(m.params_from_unit(dn), pd);
    J.col(j).array() = (J.col(j) - pd).array() * ev.inv_measured().array() / (up(j) - dn(j));
  }
  if (columns.split()) columns.share(J.data(), static_cast<std::size_t>(J.size()));
  Eigen::MatrixXd jtj = Eigen::MatrixXd::Zero(k, k);
  jtj.selfadjointView<Eigen::Lower>().rankUpdate(J.transpose());
  jtj = jtj.selfadjointView<Eigen::Lower>();
  // A non-finite prediction (a param at a pole) says nothing: treat as zero effect there.
  for (Eigen::Index i = 0; i < jtj.size(); ++i) {
    if (!std::isfinite(jtj.data()[i])) jtj.data()[i] = 0.0;
  }
  return jtj;
}

}  // namespace

Identifiability check_identifiability(const Evaluator& ev, const Eigen::VectorXd& params,
                                      const Reducer& reduce, const ColumnSplit& columns) {
  PERFIT_ASSERT(!columns.split() || (columns.share && !reduce),
                "a column split needs every row on every process");
  const Model& m = ev.model();
  const auto k = static_cast<Eigen::Index>(m.n_params());
  Identifiability out;
  out.identifiable.assign(static_cast<std::size_t>(k), true);
  if (k == 0) return out;  // a model of constants only: nothing to determine

  std::vector<const std::vector<double>*> cols;
  std::vector<std::size_t> constant;
  for (std::size_t c = 0; c < m.columns_used().size(); ++c) {
    cols.push_back(&ev.column_values(c));
    const auto [lo, hi] = std::minmax_element(cols.back()->begin(), cols.back()->end());
    if (lo != cols.back()->end() && *lo == *hi) constant.push_back(c);
  }
  double distinct = count_distinct(cols, ev.rows());

  Eigen::MatrixXd jtj = unit_jtj(ev, params, columns);
  if (reduce) {
    reduce(jtj.data(), static_cast<std::size_t>(jtj.size()));
    reduce(&distinct, 1);  // a sum over slices: an upper bound of the distinct count
  }
  const auto& names = m.param_names();
  const std::string factors = join(m.columns_used());
  if (distinct < static_cast<double>(k)) {
    out.warnings.push_back("only " + format_g(distinct) + " distinct configurations of (" +
                           factors + ") for " + std::to_string(k) + " params: at most " +
                           format_g(distinct) +
                           " of them can be determined; measure more configurations");
  }
  out.distinct_configurations = static_cast<std::size_t>(distinct);
  const double dmax = jtj.diagonal().maxCoeff();
  std::vector<Eigen::Index> live;
  std::vector<std::string> dead;
  std::vector<std::size_t> cause;  // the constant columns behind any dead param
  for (Eigen::Index j = 0; j < k; ++j) {
    if (jtj(j, j) <= 1e-24 * std::max(dmax, 1e-300) || jtj(j, j) == 0.0) {
      dead.push_back(names[static_cast<std::size_t>(j)]);
      out.identifiable[static_cast<std::size_t>(j)] = false;
      if (!reduce) {
        for (const std::size_t c : causes(ev, params, j, constant)) {
          if (std::find(cause.begin(), cause.end(), c) == cause.end()) cause.push_back(c);
        }
      }
    } else {
      live.push_back(j);
    }
  }
  std::vector<std::string> named;
  for (const std::size_t c : cause)
    named.push_back("'" + m.columns_used()[c] + "' (= " + format_g(cols[c]->front()) + ")");
  const std::string why =
      named.empty() ? "" : "; column " + join(named) + " is constant in this set";
  if (!dead.empty()) {
    out.warnings.push_back("param(s) " + join(dead) +
                           " have no effect on any prediction at the "
                           "fitted values, so the data cannot determine them" +
                           why);
  }
  for (const auto& component : linked(jtj, live)) name_trade_offs(jtj, component, names, why, out);
  return out;
}

}  // namespace perfit::model
