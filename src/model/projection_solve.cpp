// The per-candidate solve of the projection: given a candidate's accumulated statistics, the
// bounded least-squares problem of its linear constants (block form for joint fits) and its cost.
#include <algorithm>
#include <cmath>
#include <limits>

#include "perfit/model/bounded_lsq.hpp"
#include "perfit/model/projection.hpp"

namespace perfit::model {

BlockQP ProjectedEvaluator::problem(const Eigen::Ref<const Eigen::VectorXd>& st,
                                    const Eigen::Ref<const Eigen::VectorXd>& x,
                                    double total_weight) const {
  BlockQP q;
  for (const Eigen::Index k : block_sizes_) {
    q.blocks.push_back(Eigen::MatrixXd::Zero(k, k));
    q.links.push_back(Eigen::MatrixXd::Zero(k, hub_size_));
  }
  q.hub = Eigen::MatrixXd::Zero(hub_size_, hub_size_);
  const auto n = static_cast<Eigen::Index>(k_);
  q.v.resize(n);
  q.lo.resize(n);
  q.hi.resize(n);
  const std::vector<Eigen::Index>& at = place_;
  const Model& m = ev_->model();
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const auto [i, j] = pairs_[p];
    const double h = st(static_cast<Eigen::Index>(p));
    if (j == k_) {
      if (i < k_) q.v(at[i]) = h;
      continue;
    }
    const std::int32_t bi = block_[i], bj = block_[j];
    const Eigen::Index li = local_[i], lj = local_[j];
    if (bi >= 0 && bj >= 0) {
      q.blocks[static_cast<std::size_t>(bi)](li, lj) =
          q.blocks[static_cast<std::size_t>(bi)](lj, li) = h;
    } else if (bi >= 0) {
      q.links[static_cast<std::size_t>(bi)](li, lj) = h;
    } else if (bj >= 0) {
      q.links[static_cast<std::size_t>(bj)](lj, li) = h;
    } else {
      q.hub(li, lj) = q.hub(lj, li) = h;
    }
  }
  for (std::size_t a = 0; a < k_; ++a) {
    const ParamSpec& p = m.spec().params[sep_.linear[a]];
    q.lo(at[a]) = p.lo;
    q.hi(at[a]) = p.hi;
  }
  // The penalty of the linear params, bound-normalised u = (c - lo)/(hi - lo), times W:
  // L2 adds W*lambda*u^2 (a quadratic), L1 adds W*lambda*u (linear: u >= 0 in the box).
  const CostOptions& co = ev_->cost_options();
  if (co.penalty != Penalty::none && co.lambda > 0.0) {
    const double wl = total_weight * co.lambda;
    for (std::size_t a = 0; a < k_; ++a) {
      const Eigen::Index i = at[a];
      const double h = q.hi(i) - q.lo(i);
      if (co.penalty == Penalty::l2) {
        const std::int32_t b = block_[a];
        (b < 0 ? q.hub(local_[a], local_[a])
               : q.blocks[static_cast<std::size_t>(b)](local_[a], local_[a])) += wl / (h * h);
        q.v(i) += wl * q.lo(i) / (h * h);
      } else {
        q.v(i) -= wl / (2.0 * h);
      }
    }
  }
  add_pooling(q, x, total_weight);
  return q;
}

// The pooling penalty (Model::pooling) times W: each pool is weight * sum_g (x_g - m)^2 over
// its copies, minimised over its common value m, which joins the hub as a free variable (the
// same minimum as weight * x'(I - J/G)x, without coupling every group to every other).
// Copies that are searched (not linear) enter at their candidate values.
void ProjectedEvaluator::add_pooling(BlockQP& q, const Eigen::Ref<const Eigen::VectorXd>& x,
                                     double total_weight) const {
  for (const auto& pool : ev_->model().pools()) {
    const double w = total_weight * pool.weight;
    const bool any_linear = std::any_of(pool.params.begin(), pool.params.end(),
                                        [&](std::size_t i) { return linear_index(i) >= 0; });
    if (!(w > 0.0) || !any_linear) continue;
    const Eigen::Index h = q.hub.rows(), n = q.v.size();
    q.hub.conservativeResize(h + 1, h + 1);
    q.hub.row(h).setZero();
    q.hub.col(h).setZero();
    for (auto& l : q.links) l.conservativeResize(Eigen::NoChange, h + 1), l.col(h).setZero();
    q.v.conservativeResize(n + 1);
    q.lo.conservativeResize(n + 1);
    q.hi.conservativeResize(n + 1);
    q.v(n) = 0.0;
    q.lo(n) = -std::numeric_limits<double>::infinity();
    q.hi(n) = std::numeric_limits<double>::infinity();
    q.hub(h, h) = w * static_cast<double>(pool.params.size());
    for (const std::size_t i : pool.params) {
      const auto a = linear_index(i);
      if (a < 0) {
        q.v(n) += w * x(static_cast<Eigen::Index>(i));
        continue;
      }
      const std::int32_t b = block_[static_cast<std::size_t>(a)];
      const Eigen::Index l = local_[static_cast<std::size_t>(a)];
      if (b < 0) {
        q.hub(l, l) += w;
        q.hub(l, h) = q.hub(h, l) = -w;
      } else {
        q.blocks[static_cast<std::size_t>(b)](l, l) += w;
        q.links[static_cast<std::size_t>(b)](l, h) = -w;
      }
    }
  }
}

Eigen::Index ProjectedEvaluator::linear_index(std::size_t param) const {
  const auto it = std::find(sep_.linear.begin(), sep_.linear.end(), param);
  return it == sep_.linear.end() ? -1 : static_cast<Eigen::Index>(it - sep_.linear.begin());
}

void ProjectedEvaluator::solve(Eigen::Ref<Eigen::MatrixXd> pop, const Eigen::MatrixXd& stats,
                               double offset, double total_weight,
                               Eigen::Ref<Eigen::VectorXd> costs,
                               std::vector<bool>& needs_check) const {
  const CostOptions& co = ev_->cost_options();
  const Model& m = ev_->model();
  const std::size_t pairs = pairs_.size();
  needs_check.assign(static_cast<std::size_t>(pop.cols()), false);
  std::vector<signed char> bounds;  // the previous candidate's active set (a warm start)
  Eigen::VectorXd x(static_cast<Eigen::Index>(k_));
  for (Eigen::Index c = 0; c < pop.cols(); ++c) {
    const auto st = stats.col(c);
    if (!st.head(static_cast<Eigen::Index>(pairs)).allFinite()) {
      costs(c) = std::numeric_limits<double>::infinity();
      continue;
    }
    const Eigen::VectorXd solved =
        bounded_least_squares(problem(st, pop.col(c), total_weight), &bounds);
    // Back from the QP's order; the sum of squares c'Hc - 2v'c + s from the statistics.
    for (std::size_t a = 0; a < k_; ++a) x(static_cast<Eigen::Index>(a)) = solved(place_[a]);
    double quad = 0.0;
    for (std::size_t p = 0; p < pairs; ++p) {
      const auto [i, j] = pairs_[p];
      const double xi = i < k_ ? x(i) : -1.0, xj = j < k_ ? x(j) : -1.0;  // t enters as -1
      quad += (i == j ? 1.0 : 2.0) * st(static_cast<Eigen::Index>(p)) * xi * xj;
    }
    quad = std::max(0.0, quad);
    for (Eigen::Index a = 0; a < x.size(); ++a)
      pop(static_cast<Eigen::Index>(sep_.linear[static_cast<std::size_t>(a)]), c) = x(a);
    costs(c) = (quad + offset) / total_weight + co.lambda * ev_->penalty(pop.col(c)) +
               m.pooling(pop.col(c));
    // A prediction can be negative only through a negative offset or a basis of the wrong sign.
    bool check = st(static_cast<Eigen::Index>(pairs + 2 * k_)) > 0.0;
    for (Eigen::Index a = 0; a < x.size(); ++a) {
      const double neg = st(static_cast<Eigen::Index>(pairs) + a),
                   pos = st(static_cast<Eigen::Index>(pairs + k_) + a);
      check = check || (x(a) > 0.0 && neg > 0.0) || (x(a) < 0.0 && pos > 0.0);
    }
    needs_check[static_cast<std::size_t>(c)] = check;
    if (!std::isfinite(costs(c))) costs(c) = std::numeric_limits<double>::infinity();
  }
}

}  // namespace perfit::model
