#include "perfit/de/levenberg_marquardt.hpp"

#include <Eigen/Cholesky>

#include <cmath>
#include <limits>

namespace perfit::de {

LmResult levenberg_marquardt(const ResidualFn& f, const Eigen::VectorXd& u0,
                             const LmOptions& o) {
  LmResult res;
  const Eigen::Index n = u0.size();
  Eigen::VectorXd u = u0.cwiseMax(0.0).cwiseMin(1.0), r, rt;
  f(u, r);
  ++res.residual_evaluations;
  double cost = r.allFinite() ? r.squaredNorm() : std::numeric_limits<double>::infinity();
  res.u = u;
  res.cost = cost;
  if (!std::isfinite(cost)) return res;
  Eigen::MatrixXd J(r.size(), n);
  double mu = -1.0, nu = 2.0;
  bool fresh_jacobian = false;
  for (int it = 0; it < o.max_iterations; ++it) {
    res.iterations = it + 1;
    if (!fresh_jacobian) {
      for (Eigen::Index k = 0; k < n; ++k) {
        Eigen::VectorXd up = u;
        const double step = u(k) + o.h <= 1.0 ? o.h : -o.h;  // stay inside the cube
        up(k) += step;
        f(up, rt);
        ++res.residual_evaluations;
        J.col(k) = (rt - r) / step;
      }
      fresh_jacobian = true;
      if (!J.allFinite()) break;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    if (mu < 0) mu = 1e-3 * A.diagonal().maxCoeff();
    Eigen::MatrixXd Am = A;
    Am.diagonal() += mu * A.diagonal().cwiseMax(1e-12);
    const Eigen::VectorXd delta = Am.ldlt().solve(-g);
    const Eigen::VectorXd un = (u + delta).cwiseMax(0.0).cwiseMin(1.0);
    const double step_norm = (un - u).norm();
    f(un, rt);
    ++res.residual_evaluations;
    const double cn = rt.allFinite() ? rt.squaredNorm() : std::numeric_limits<double>::infinity();
    if (cn < cost) {
      // Gain ratio against the linear model decides how much to trust it next time.
      const double predicted = -(2.0 * g.dot(un - u) + (J * (un - u)).squaredNorm());
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
