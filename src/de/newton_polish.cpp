#include "perfit/de/newton_polish.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace perfit::de {

namespace {

// Per dimension, the two offsets of its stencil: +-s inside the cube, else both on the side
// that stays inside (s, 2s), so a point at a bound still gets a second derivative.
struct Stencil {
  Eigen::VectorXd a, b;  // offsets, a != b, both != 0
};

Stencil stencil(const Eigen::VectorXd& u, double h) {
  Stencil s{Eigen::VectorXd(u.size()), Eigen::VectorXd(u.size())};
  for (Eigen::Index k = 0; k < u.size(); ++k) {
    const bool up = u(k) + h <= 1.0, down = u(k) - h >= 0.0;
    if (up && down) {
      s.a(k) = h;
      s.b(k) = -h;
    } else {
      const double dir = up ? 1.0 : -1.0;
      s.a(k) = dir * h;
      s.b(k) = 2.0 * dir * h;
    }
  }
  return s;
}

// The gradient and Hessian at u from f0 and one batch: per dimension its two stencil points,
// per pair the point moved by a in both.
void derivatives(const BatchObjective& f, const Eigen::VectorXd& u, double f0, const Stencil& s,
                 Eigen::VectorXd& g, Eigen::MatrixXd& H, std::size_t& evals) {
  const Eigen::Index d = u.size();
  Eigen::MatrixXd pts(d, 2 * d + d * (d - 1) / 2);
  Eigen::Index c = 0;
  for (Eigen::Index k = 0; k < d; ++k) {
    pts.col(c) = u;
    pts(k, c++) += s.a(k);
    pts.col(c) = u;
    pts(k, c++) += s.b(k);
  }
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = i + 1; j < d; ++j) {
      pts.col(c) = u;
      pts(i, c) += s.a(i);
      pts(j, c++) += s.a(j);
    }
  }
  Eigen::VectorXd v;
  f(pts, v);
  evals += static_cast<std::size_t>(pts.cols());
  g.resize(d);
  H.resize(d, d);
  for (Eigen::Index k = 0; k < d; ++k) {  // the parabola through (0, f0), (a, fa), (b, fb)
    const double a = s.a(k), b = s.b(k), da = v(2 * k) - f0, db = v(2 * k + 1) - f0;
    H(k, k) = 2.0 * (da / a - db / b) / (a - b);
    g(k) = da / a - 0.5 * H(k, k) * a;
  }
  c = 2 * d;
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = i + 1; j < d; ++j) {
      // f(u + a_i e_i + a_j e_j) - f(u + a_i e_i) - f(u + a_j e_j) + f(u) = H_ij a_i a_j
      H(i, j) = H(j, i) = (v(c++) - v(2 * i) - v(2 * j) + f0) / (s.a(i) * s.a(j));
    }
  }
}

// The Newton step, with the dimensions at a bound that the gradient pushes outward held
// there, and a Levenberg shift when the Hessian is not positive definite.
Eigen::VectorXd step(const Eigen::VectorXd& u, const Eigen::VectorXd& g, const Eigen::MatrixXd& H) {
  const Eigen::Index d = u.size();
  std::vector<Eigen::Index> free;
  for (Eigen::Index k = 0; k < d; ++k) {
    const bool pinned = (u(k) <= 0.0 && g(k) > 0.0) || (u(k) >= 1.0 && g(k) < 0.0);
    if (!pinned) free.push_back(k);
  }
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(d);
  if (free.empty()) return delta;
  const auto m = static_cast<Eigen::Index>(free.size());
  Eigen::MatrixXd A(m, m);
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    b(i) = -g(free[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < m; ++j)
      A(i, j) = H(free[static_cast<std::size_t>(i)], free[static_cast<std::size_t>(j)]);
  }
  const double scale = std::max(A.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  for (double shift = 0.0;; shift = shift == 0.0 ? 1e-8 * scale : 10.0 * shift) {
    Eigen::MatrixXd As = A;
    As.diagonal().array() += shift;
    Eigen::LLT<Eigen::MatrixXd> llt(As);
    if (llt.info() == Eigen::Success || shift > 1e8 * scale) {
      const Eigen::VectorXd x =
          llt.info() == Eigen::Success ? Eigen::VectorXd(llt.solve(b)) : Eigen::VectorXd(b / scale);
      for (Eigen::Index i = 0; i < m; ++i) delta(free[static_cast<std::size_t>(i)]) = x(i);
      return delta;
    }
  }
}

}  // namespace

NewtonResult newton_polish(const BatchObjective& f, const Eigen::VectorXd& u0, double cost0,
                           const NewtonOptions& o) {
  NewtonResult r{u0.cwiseMax(0.0).cwiseMin(1.0), cost0, 0, 0};
  if (!std::isfinite(cost0) || u0.size() == 0) return r;
  double h = o.h;
  Eigen::VectorXd g, trial(u0.size()), one;
  Eigen::MatrixXd H;
  for (int it = 0; it < o.max_iterations; ++it) {
    r.iterations = it + 1;
    derivatives(f, r.u, r.cost, stencil(r.u, h), g, H, r.evaluations);
    if (!g.allFinite() || !H.allFinite()) break;
    Eigen::VectorXd delta = step(r.u, g, H);
    // A gain the quadratic model puts below the cost's own rounding is noise to chase.
    if (-(g.dot(delta) + 0.5 * delta.dot(H * delta)) <= o.ftol * std::fabs(r.cost)) break;
    bool moved = false;
    for (int k = 0; k <= o.max_halvings && delta.cwiseAbs().maxCoeff() >= o.xtol;
         ++k, delta *= 0.5) {
      trial = (r.u + delta).cwiseMax(0.0).cwiseMin(1.0);
      f(trial, one);
      ++r.evaluations;
      if (std::isfinite(one(0)) && one(0) < r.cost) {
        moved = true;
        break;
      }
    }
    if (!moved) break;
    const double length = (trial - r.u).cwiseAbs().maxCoeff();
    r.u = trial;
    r.cost = one(0);
    if (length < o.xtol) break;
    // Near the optimum the stencil shrinks with the steps: its truncation error falls with h^2
    // while rounding (eps * cost / h^2 in the Hessian) stays small for h >= ~1e-6.
    h = std::clamp(length, 1e-6, h);
  }
  return r;
}

}  // namespace perfit::de
