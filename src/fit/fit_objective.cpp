#include "fit_objective.hpp"

#include <chrono>

namespace perfit::fit::detail {

FitObjective::FitObjective(const model::Evaluator& ev, double offset, double weight,
                           model::Reducer sum, const model::Separation* sep)
    : ev_(ev), offset_(offset), total_offset_(offset), weight_(weight), sum_(std::move(sum)) {
  if (sep && sep->separable()) proj_.emplace(ev, *sep);
  if (sum_) sum_(&total_offset_, 1);  // each rank's compressed slice has its own constant
}

std::size_t FitObjective::dim() const {
  return proj_ ? proj_->separation().nonlinear.size() : ev_.model().n_params();
}

void FitObjective::reduce(double* data, std::size_t n) {
  if (!sum_) return;
  const auto t0 = std::chrono::steady_clock::now();
  sum_(data, n);
  reduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void FitObjective::full_costs(const Eigen::MatrixXd& unit, Eigen::VectorXd& costs) {
  const model::Model& m = ev_.model();
  params_.resize(unit.rows(), unit.cols());
  for (Eigen::Index j = 0; j < unit.cols(); ++j) params_.col(j) = m.params_from_unit(unit.col(j));
  costs.resize(unit.cols());
  ev_.residual_sums(params_, costs);
  costs.array() += offset_;
  reduce(costs.data(), static_cast<std::size_t>(costs.size()));
  ev_.costs_from_sums(params_, costs, weight_);
}

void FitObjective::project(Eigen::MatrixXd& params, Eigen::VectorXd& costs) {
  proj_->statistics(params, stats_);
  reduce(stats_.data(), static_cast<std::size_t>(stats_.size()));
  std::vector<bool> check;
  costs.resize(params.cols());
  proj_->solve(params, stats_, total_offset_, weight_, costs, check);
  // Rare (a basis of both signs): confirm by a pass that sees every prediction. The check
  // flags come from reduced statistics, so every rank takes the same branch.
  std::vector<Eigen::Index> which;
  for (Eigen::Index j = 0; j < params.cols(); ++j) {
    if (check[static_cast<std::size_t>(j)]) which.push_back(j);
  }
  if (which.empty()) return;
  Eigen::MatrixXd sub(params.rows(), static_cast<Eigen::Index>(which.size()));
  for (std::size_t a = 0; a < which.size(); ++a)
    sub.col(static_cast<Eigen::Index>(a)) = params.col(which[a]);
  Eigen::VectorXd sums(sub.cols());
  ev_.residual_sums(sub, sums);
  sums.array() += offset_;
  reduce(sums.data(), static_cast<std::size_t>(sums.size()));
  ev_.costs_from_sums(sub, sums, weight_);
  for (std::size_t a = 0; a < which.size(); ++a)
    costs(which[a]) = sums(static_cast<Eigen::Index>(a));
}

void FitObjective::operator()(const Eigen::MatrixXd& unit, Eigen::VectorXd& costs) {
  if (!proj_) return full_costs(unit, costs);
  const model::Model& m = ev_.model();
  const auto& nl = proj_->separation().nonlinear;
  params_ = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m.n_params()), unit.cols());
  for (Eigen::Index j = 0; j < unit.cols(); ++j) {
    for (std::size_t a = 0; a < nl.size(); ++a) {
      params_(static_cast<Eigen::Index>(nl[a]), j) =
          m.from_unit(nl[a], unit(static_cast<Eigen::Index>(a), j));
    }
  }
  project(params_, costs);
}

Eigen::VectorXd FitObjective::full_unit(const Eigen::VectorXd& search_unit) {
  const model::Model& m = ev_.model();
  if (!proj_) return search_unit;
  Eigen::VectorXd one;
  (*this)(search_unit, one);
  Eigen::VectorXd u(static_cast<Eigen::Index>(m.n_params()));
  for (std::size_t k = 0; k < m.n_params(); ++k) {
    u(static_cast<Eigen::Index>(k)) =
        std::clamp(m.to_unit(k, params_(static_cast<Eigen::Index>(k), 0)), 0.0, 1.0);
  }
  return u;
}

Eigen::VectorXd FitObjective::search_unit(const Eigen::VectorXd& full_unit) const {
  if (!proj_) return full_unit;
  const auto& nl = proj_->separation().nonlinear;
  Eigen::VectorXd u(static_cast<Eigen::Index>(nl.size()));
  for (std::size_t a = 0; a < nl.size(); ++a)
    u(static_cast<Eigen::Index>(a)) = full_unit(static_cast<Eigen::Index>(nl[a]));
  return u;
}

}  // namespace perfit::fit::detail
