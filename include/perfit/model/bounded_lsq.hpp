// The small bounded least-squares problem of variable projection, on its normal equations:
//   minimise q(c) = c'Hc - 2 v'c   subject to lo <= c <= hi
// with H symmetric positive semidefinite. An active-set method in the manner of Stark &
// Parker's BVLS (Comput. Stat. 10, 1995): solve on the free variables, step back to the first
// bound crossed, free the bound variable whose gradient points inside. Variables are scaled to
// a unit diagonal first, so collinear bases of very different sizes (seconds per sample next
// to seconds per run) are solved to full precision; a zero column (a basis that is 0 on every
// row) leaves its variable at the bounded point nearest 0.
//
// A joint fit of G groups has H block diagonal (a group's constants meet only its own rows)
// but for a few hub variables that meet every group (shared constants, the pools' common
// values): BlockQP keeps that shape, so that a solve costs G small factorisations and one of
// the hub (a Schur complement) instead of one cubic in every constant.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace perfit::model {

// H = [A_0 ... 0 C_0; ...; 0 ... A_{B-1} C_{B-1}; C_0' ... C_{B-1}' D], variables in that order
// (block 0's, ..., then the hub's). A problem without blocks is dense (H = D).
struct BlockQP {
  std::vector<Eigen::MatrixXd> blocks;  // A_b, symmetric
  std::vector<Eigen::MatrixXd> links;   // C_b: block b's rows x the hub's columns
  Eigen::MatrixXd hub;                  // D, symmetric
  Eigen::VectorXd v, lo, hi;            // over every variable; a hub bound may be infinite

  Eigen::Index size() const { return v.size(); }
  Eigen::VectorXd times(const Eigen::VectorXd& x) const;  // H x
  double diagonal(Eigen::Index i) const;
};

// Returns the minimiser (within bounds; the best point found if the iteration limit is hit).
// Precondition: sizes agree, lo <= hi, H and v finite.
// `bounds`, when given: per variable -1 (at lo), 0 (free) or 1 (at hi) to start from (empty:
// all free), and on return the solution's. A neighbouring problem's set (the previous DE
// candidate's) makes one or two solves enough where a cold start frees and fixes the bound
// variables one per solve: with a joint fit's dozens of linear constants that was most of
// the fit.
Eigen::VectorXd bounded_least_squares(BlockQP problem, std::vector<signed char>* bounds = nullptr);
Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& H, const Eigen::VectorXd& v,
                                      const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                      std::vector<signed char>* bounds = nullptr);

}  // namespace perfit::model
