#include "perfit/model/bounded_lsq.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <vector>

namespace perfit::model {

namespace {

enum class At : signed char { lower = -1, free = 0, upper = 1 };

// The scaled problem: unit diagonal, y = c / d.
struct Scaled {
  Eigen::MatrixXd H;
  Eigen::VectorXd v, lo, hi;
};

// Solves on the free variables with the others at their bounds; false when the solve breaks
// down (non-finite), which leaves x as it is.
bool free_solve(const Scaled& s, const std::vector<At>& at, const Eigen::VectorXd& x,
                std::vector<Eigen::Index>& free, Eigen::VectorXd& z) {
  const auto n = static_cast<Eigen::Index>(at.size());
  free.clear();
  for (Eigen::Index k = 0; k < n; ++k) {
    if (at[static_cast<std::size_t>(k)] == At::free) free.push_back(k);
  }
  const auto m = static_cast<Eigen::Index>(free.size());
  if (m == 0) return true;
  Eigen::MatrixXd hf(m, m);
  Eigen::VectorXd rhs(m);
  for (Eigen::Index a = 0; a < m; ++a) {
    rhs(a) = s.v(free[a]);
    for (Eigen::Index k = 0; k < n; ++k) {
      if (at[static_cast<std::size_t>(k)] != At::free) rhs(a) -= s.H(free[a], k) * x(k);
    }
    for (Eigen::Index b = 0; b < m; ++b) hf(a, b) = s.H(free[a], free[b]);
  }
  // A ridge far below the unit diagonal: collinear bases get the smaller solution instead of
  // a breakdown; the cost changes by ~1e-13 of |y|^2.
  hf.diagonal().array() += 1e-13;
  z = hf.ldlt().solve(rhs);
  return z.allFinite();
}

// Moves x towards z on the free variables until the first bound; fixes what it reaches.
// Returns false when z is feasible (x = z).
bool step_to_bound(const Scaled& s, const std::vector<Eigen::Index>& free, const Eigen::VectorXd& z,
                   Eigen::VectorXd& x, std::vector<At>& at) {
  double alpha = 1.0;
  Eigen::Index blocking = -1;
  for (Eigen::Index a = 0; a < static_cast<Eigen::Index>(free.size()); ++a) {
    const Eigen::Index k = free[a];
    double t = 1.0;
    if (z(a) < s.lo(k)) t = (s.lo(k) - x(k)) / (z(a) - x(k));
    if (z(a) > s.hi(k)) t = (s.hi(k) - x(k)) / (z(a) - x(k));
    if (t < alpha) {
      alpha = t;
      blocking = k;
    }
  }
  for (Eigen::Index a = 0; a < static_cast<Eigen::Index>(free.size()); ++a) {
    const Eigen::Index k = free[a];
    x(k) = blocking < 0 ? z(a) : x(k) + alpha * (z(a) - x(k));
    auto& state = at[static_cast<std::size_t>(k)];
    if (x(k) <= s.lo(k) || (k == blocking && z(a) < s.lo(k))) {
      x(k) = s.lo(k);
      state = At::lower;
    } else if (x(k) >= s.hi(k) || k == blocking) {
      x(k) = s.hi(k);
      state = At::upper;
    }
  }
  return blocking >= 0;
}

// The bound variable whose gradient most points into the box, or -1 (optimal).
Eigen::Index most_violating(const Scaled& s, const std::vector<At>& at, const Eigen::VectorXd& x) {
  const Eigen::VectorXd g = s.H * x - s.v;  // half the gradient of q
  const double tol = 1e-11 * std::max(1.0, s.v.cwiseAbs().maxCoeff());
  Eigen::Index best = -1;
  double worst = tol;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const At a = at[static_cast<std::size_t>(k)];
    const double into = a == At::lower ? -g(k) : a == At::upper ? g(k) : 0.0;
    if (into > worst && s.lo(k) < s.hi(k)) {
      worst = into;
      best = k;
    }
  }
  return best;
}

}  // namespace

Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& H, const Eigen::VectorXd& v,
                                      const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                      std::vector<signed char>* bounds) {
  const Eigen::Index n = v.size();
  Eigen::VectorXd c(n);
  // A zero column does not interact (H is semidefinite): only the linear term decides.
  std::vector<Eigen::Index> active;
  for (Eigen::Index k = 0; k < n; ++k) {
    if (H(k, k) > 0.0) {
      active.push_back(k);
    } else {
      c(k) = v(k) > 0.0 ? hi(k) : v(k) < 0.0 ? lo(k) : std::clamp(0.0, lo(k), hi(k));
    }
  }
  const auto m = static_cast<Eigen::Index>(active.size());
  if (m == 0) return c;
  Eigen::VectorXd d(m);
  Scaled s{Eigen::MatrixXd(m, m), Eigen::VectorXd(m), Eigen::VectorXd(m), Eigen::VectorXd(m)};
  for (Eigen::Index a = 0; a < m; ++a) d(a) = 1.0 / std::sqrt(H(active[a], active[a]));
  for (Eigen::Index a = 0; a < m; ++a) {
    for (Eigen::Index b = 0; b < m; ++b) s.H(a, b) = H(active[a], active[b]) * d(a) * d(b);
    s.v(a) = v(active[a]) * d(a);
    s.lo(a) = lo(active[a]) / d(a);
    s.hi(a) = hi(active[a]) / d(a);
  }
  Eigen::VectorXd x(m), z;
  for (Eigen::Index a = 0; a < m; ++a) x(a) = std::clamp(0.0, s.lo(a), s.hi(a));
  std::vector<At> at(static_cast<std::size_t>(m), At::free);
  if (bounds && bounds->size() == static_cast<std::size_t>(n)) {
    for (Eigen::Index a = 0; a < m; ++a) {
      const signed char b = (*bounds)[static_cast<std::size_t>(active[a])];
      if (b < 0) {
        at[static_cast<std::size_t>(a)] = At::lower;
        x(a) = s.lo(a);
      } else if (b > 0) {
        at[static_cast<std::size_t>(a)] = At::upper;
        x(a) = s.hi(a);
      }
    }
  }
  std::vector<Eigen::Index> free;
  // Each pass either fixes a variable or frees one; BVLS needs a few times n in practice.
  for (int iter = 0; iter < 10 * static_cast<int>(m) + 20; ++iter) {
    if (!free_solve(s, at, x, free, z)) break;
    if (!free.empty() && step_to_bound(s, free, z, x, at)) continue;
    const Eigen::Index k = most_violating(s, at, x);
    if (k < 0) break;
    at[static_cast<std::size_t>(k)] = At::free;
  }
  for (Eigen::Index a = 0; a < m; ++a) {
    c(active[a]) = std::clamp(x(a) * d(a), lo(active[a]), hi(active[a]));
  }
  if (bounds) {
    bounds->assign(static_cast<std::size_t>(n), 0);
    for (Eigen::Index a = 0; a < m; ++a) (*bounds)[static_cast<std::size_t>(active[a])] = static_cast<signed char>(at[static_cast<std::size_t>(a)]);
  }
  return c;
}

}  // namespace perfit::model
