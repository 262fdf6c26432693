// What the DE minimises in one fit, private to the engine. Either the cost over every param
// (the evaluator's residual sums), or, when the model has linear constants and the cost allows
// it, variable projection: the DE searches only the nonlinear params and each candidate's
// linear params are solved by bounded least squares from statistics gathered in the same pass
// over the rows (model/projection.hpp). Both reduce over the ranks that share the rows and
// give the same cost for the same full params, up to rounding.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "perfit/model/evaluator.hpp"
#include "perfit/model/identifiability.hpp"
#include "perfit/model/projection.hpp"

namespace perfit::fit::detail {

class FitObjective {
 public:
  // offset: this rank's compressed rows' constant; weight: the whole set's weight sum; sum:
  // the reduction over the ranks sharing the rows (empty: none; collective: every rank of the
  // island constructs it). sep: null or not separable: no projection.
  FitObjective(const model::Evaluator& ev, double offset, double weight, model::Reducer sum,
               const model::Separation* sep);

  // The dimension the DE searches (0: every param is linear, one solve is the fit).
  std::size_t dim() const;
  bool projected() const { return proj_.has_value(); }
  const model::Evaluator& evaluator() const { return ev_; }
  // The DE's batch objective on points of [0,1]^dim().
  void operator()(const Eigen::MatrixXd& unit, Eigen::VectorXd& costs);
  // The full unit-cube point of a search point (the linear params solved).
  Eigen::VectorXd full_unit(const Eigen::VectorXd& search_unit);
  // The search point of a full unit-cube point (DE seeds).
  Eigen::VectorXd search_unit(const Eigen::VectorXd& full_unit) const;
  // Costs of full unit-cube points, judged by the evaluator (the polish's referee).
  void full_costs(const Eigen::MatrixXd& unit, Eigen::VectorXd& costs);
  double reduce_seconds() const { return reduce_seconds_; }

 private:
  void reduce(double* data, std::size_t n);
  // Solves the linear params of full-param candidates (nonlinear entries set) and their costs.
  void project(Eigen::MatrixXd& params, Eigen::VectorXd& costs);

  const model::Evaluator& ev_;
  double offset_, total_offset_, weight_;  // this rank's compressed constant, and the island's
  model::Reducer sum_;
  std::optional<model::ProjectedEvaluator> proj_;
  Eigen::MatrixXd params_, stats_;
  double reduce_seconds_ = 0.0;
};

}  // namespace perfit::fit::detail
