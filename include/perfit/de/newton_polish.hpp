// Bounded Newton polish of a smooth cost in a few dimensions of the unit cube, from batch cost
// evaluations only: the gradient and Hessian by finite differences, all of one iteration's
// stencil in one batch. Used where the search covers only the nonlinear params (variable
// projection): there the cost is a smooth function of those few, one evaluation costs one pass
// over the rows for the whole batch, and a full-space Levenberg-Marquardt would pay a
// Jacobian of every row and every param per step for the same optimum.
#pragma once

#include <Eigen/Core>
#include <cstddef>

#include "perfit/de/optimizer.hpp"

namespace perfit::de {

struct NewtonOptions {
  int max_iterations = 30;
  double h = 1e-4;      // finite-difference step in the unit cube (shrinks with the steps)
  double xtol = 1e-12;  // stop when a step is shorter than this (unit-cube max norm)
  // Stop when the quadratic model promises less than this relative decrease: below it the
  // differences of costs are rounding (a projected cost is a difference of large sums).
  double ftol = 1e-12;
  int max_halvings = 30;  // backtracking of a step that does not lower the cost
};

struct NewtonResult {
  Eigen::VectorXd u;
  double cost = 0.0;
  int iterations = 0;
  std::size_t evaluations = 0;
};

// From u0 with known cost0. Every call of f gets a batch (one column per point) and must be
// collective the same way on every process that shares the rows (f reduces; costs come back
// identical, so every process takes identical steps). Non-finite costs are infeasible.
NewtonResult newton_polish(const BatchObjective& f, const Eigen::VectorXd& u0, double cost0,
                           const NewtonOptions& options = {});

}  // namespace perfit::de
