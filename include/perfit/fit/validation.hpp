// Fits on training rows, judged on held-out rows: the measure of how well a model predicts
// configurations it has not seen (docs/validation.md). Each fold is one fit through the engine
// on one rank; the folds are dealt round-robin over the ranks of a communicator and every
// rank gets every fold's result, so validate, select and lambda: auto scale with ranks.
#pragma once

#include <mpi.h>

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "perfit/data/splits.hpp"
#include "perfit/fit/engine.hpp"

namespace perfit::fit {

// One fit to run: the problem over all rows (its weights unused) and the fold whose training
// rows it fits; fold nullptr: every row trains and every row is predicted (in-sample).
struct FoldJob {
  FitProblem problem;
  const data::Fold* fold = nullptr;
  // Run on the fold's training rows before its fit, on the rank that fits it: a joint fit
  // chooses its pooled strengths and its start there, as `fit --by` does on every row. It may
  // replace the model by one with the same params. Empty: none.
  std::function<void(FitProblem&)> prepare{};
};

struct FoldFit {
  std::string fold;  // the fold's name ("all rows" in-sample)
  std::size_t train_rows = 0, test_rows = 0;
  Eigen::VectorXd params;   // fitted on the training rows
  double train_cost = 0.0;  // the fit's cost (with its penalty)
  std::size_t generations = 0;
  Eigen::VectorXd predicted, measured;  // the test rows', in row order
  model::FitMetrics test;               // of predicted vs measured
  double test_cost = 0.0;  // mean residual of the cost's kind over the test rows, no penalty
  bool failed = false;     // the fit threw (its warning names why): params NaN, costs inf
};

// Collective over comm (MPI_COMM_NULL: serial). Every job's rows must be the same on every
// rank. progress: a line per finished fold at info (else debug). A fit that throws
// perfit::Error is logged as a warning by the rank that ran it and comes back `failed`.
// Throws: MpiError.
std::vector<FoldFit> fit_folds(const std::vector<FoldJob>& jobs, const de::FitOptions& options,
                               MPI_Comm comm, bool progress = true);

// Mean residual of the kind (rel_sq, sq_log, ape, sq) of predictions against measurements.
double mean_residual(model::Residual kind, const Eigen::VectorXd& predicted,
                     const Eigen::VectorXd& measured);

// The test rows of several folds together (k-fold and group splits predict every row once).
struct Pooled {
  model::FitMetrics metrics;
  double cost = 0.0;  // mean_residual over all test rows
  std::size_t rows = 0;
  bool failed = false;  // some fold failed: metrics and cost inf
};
Pooled pool(const std::vector<FoldFit>& folds, model::Residual kind);

}  // namespace perfit::fit
