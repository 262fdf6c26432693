#include "perfit/de/levenberg_marquardt.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>

#include "perfit/core/assert.hpp"

namespace perfit::de {

LmResult levenberg_marquardt(const ResidualFn& f, const Eigen::VectorXd& u0, const LmOptions& o,
                             const SumReducer& reduce, const ColumnSplit& columns) {
  LmResult res;
  const bool split = columns.split();
  PERFIT_ASSERT(!split || (columns.share && !reduce),
                "a column split needs every row on every process");
  const Eigen::Index n = u0.size();
  // |r|^2 summed over all ranks; a non-finite residual anywhere makes it +inf everywhere.
  auto norm2 = [&](const Eigen::VectorXd& v) {
    double x = v.allFinite() ? v.squaredNorm() : std::numeric_limits<double>::infinity();
    if (reduce) reduce(&x, 1);
    return std::isfinite(x) ? x : std::numeric_limits<double>::infinity();
  };
  Eigen::VectorXd u = u0.cwiseMax(0.0).cwiseMin(1.0), r, rt;
  f(u, r);
  ++res.residual_evaluations;
  double cost = norm2(r);
  res.u = u;
  res.cost = cost;
  if (!std::isfinite(cost)) return res;
  Eigen::MatrixXd J(r.size(), n);
  double mu = -1.0, nu = 2.0;
  bool fresh_jacobian = false;
  for (int it = 0; it < o.max_iterations; ++it) {
    res.iterations = it + 1;
    if (!fresh_jacobian) {
      if (split) J.setZero();
      for (Eigen::Index k = 0; k < n; ++k) {
        if (!columns.mine(k)) continue;
        Eigen::VectorXd up = u;
        const double step = u(k) + o.h <= 1.0 ? o.h : -o.h;  // stay inside the cube
        up(k) += step;
        f(up, rt);
        ++res.residual_evaluations;
        J.col(k) = (rt - r) / step;
      }
      if (split) columns.share(J.data(), static_cast<std::size_t>(J.size()));
      fresh_jacobian = true;
    }
    Eigen::MatrixXd A = J.transpose() * J;
    Eigen::VectorXd g = J.transpose() * r;
    if (reduce) {
      reduce(A.data(), static_cast<std::size_t>(A.size()));
      reduce(g.data(), static_cast<std::size_t>(g.size()));
    }
    if (!A.allFinite() || !g.allFinite()) break;
    if (mu < 0) mu = 1e-3 * A.diagonal().maxCoeff();
    Eigen::MatrixXd Am = A;
    Am.diagonal() += mu * A.diagonal().cwiseMax(1e-12);
    const Eigen::VectorXd delta = Am.ldlt().solve(-g);
    const Eigen::VectorXd un = (u + delta).cwiseMax(0.0).cwiseMin(1.0);
    const double step_norm = (un - u).norm();
    f(un, rt);
    ++res.residual_evaluations;
    const double cn = norm2(rt);
    if (cn < cost) {
      // Gain ratio against the linear model decides how much to trust it next time.
      const Eigen::VectorXd du = un - u;
      const double predicted = -(2.0 * g.dot(du) + du.dot(A * du));
      const double rho = predicted > 0 ? (cost - cn) / predicted : 1.0;
      mu *= std::max(1.0 / 3.0, 1.0 - std::pow(2.0 * rho - 1.0, 3));
      nu = 2.0;
      const double rel = (cost - cn) / cost;
      u = un;
      r = rt;
      cost = cn;
      fresh_jacobian = false;
      if (rel < o.ftol || step_norm < o.xtol) break;
    } else {
      mu *= nu;
      nu *= 2.0;
      if (step_norm < o.xtol || !std::isfinite(mu) || mu > 1e30) break;
    }
  }
  res.u = u;
  res.cost = cost;
  return res;
}

}  // namespace perfit::de
