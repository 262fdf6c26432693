// Bounded Levenberg-Marquardt in the unit cube, used to polish the best DE individual:
// DE finds the basin, LM converges quadratically inside it. Steps are projected onto the
// cube; the Jacobian is by forward differences (one residual evaluation per parameter).
// Marquardt's scaling (Marquardt 1963) with Nielsen's damping update (Nielsen 1999).
#pragma once

#include <Eigen/Core>
#include <functional>

#include "perfit/core/column_split.hpp"

namespace perfit::de {

// r(u): residual vector at u in [0,1]^D; the objective is |r|^2. Non-finite residuals mark
// u as infeasible.
using ResidualFn = std::function<void(const Eigen::VectorXd& u, Eigen::VectorXd& r)>;

struct LmOptions {
  int max_iterations = 100;
  // Stop when a step lowers |r|^2 by less than this, relatively. 0 (default): only the step
  // length stops it. Near the optimum a weakly determined constant moving by 1e-8 of its range
  // changes |r|^2 by ~1e-16, so stopping at 1e-14 would leave it wherever the DE happened to
  // end (the same fit on compressed and on all rows then differed by 2e-8 of a range).
  double ftol = 0.0;
  double xtol = 1e-13;  // stop when a step is shorter than this (unit-cube norm)
  double h = 1e-7;      // finite-difference step in the unit cube
};

// Sums n doubles in place across the processes that share the rows (identity when serial).
// Used for J'J, J'r and |r|^2, so ranks holding different rows take identical steps.
using SumReducer = std::function<void(double* data, std::size_t n)>;

struct LmResult {
  Eigen::VectorXd u;
  double cost = 0.0;  // |r(u)|^2
  int iterations = 0;
  int residual_evaluations = 0;
};

// columns: the Jacobian's columns shared among processes that each hold every row (then no
// reduce: the rows are not split).
LmResult levenberg_marquardt(const ResidualFn& f, const Eigen::VectorXd& u0,
                             const LmOptions& options = {}, const SumReducer& reduce = {},
                             const ColumnSplit& columns = {});

}  // namespace perfit::de
