// Variable projection (Golub & Pereyra 1973) on the evaluator's rows: for each candidate of
// the nonlinear params, the linear params are solved exactly by bounded least squares, so the
// DE searches only the nonlinear ones (separable.hpp finds the split).
//
// One pass over the rows accumulates, per candidate, the sufficient statistics of the
// squared residual e_i = a_i'c - t_i with a_i = basis(x_i)/m_i, t_i = 1 - offset(x_i)/m_i
// (rel_sq) or a_i = basis(x_i), t_i = m_i - offset(x_i) (sq):
//   H = sum w a a',  v = sum w a t,  s = sum w t^2,  so that  sum w e^2 = c'Hc - 2v'c + s,
// plus per basis the number of rows where it is negative and positive (to know when a solved
// c cannot give a negative prediction). The statistics of row slices add up, so ranks that
// share a set sum them like residual sums. Bases that do not depend on the params (most of
// them) are multiplied once per block, not once per candidate.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <vector>

#include "perfit/model/bounded_lsq.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/separable.hpp"

namespace perfit::model {

namespace detail {
class TapeKernel;
}

// Params that may be solved by least squares under this cost: all, for rel_sq and sq without
// a penalty or with one on linearly searched params; log-searched params keep their
// (non-quadratic) penalty in the DE; none for sq_log and ape.
std::vector<bool> projectable_params(const Model& m, const CostOptions& cost);

class ProjectedEvaluator {
 public:
  // ev: the rows, target, weights and cost (must outlive this). Throws: ConfigError unless the
  // residual is rel_sq or sq and sep has a linear param.
  ProjectedEvaluator(const Evaluator& ev, const Separation& sep);
  ~ProjectedEvaluator();

  const Separation& separation() const { return sep_; }
  // Doubles of statistics per candidate.
  std::size_t stats_size() const;

  // pop: n_params x n full param vectors (only the nonlinear entries are read).
  // stats: stats_size() x n, this evaluator's rows only.
  void statistics(const Eigen::Ref<const Eigen::MatrixXd>& pop, Eigen::MatrixXd& stats) const;

  // From statistics summed over every row of the set (offset: the compressed rows' constant,
  // total_weight: the set's weight sum): writes the solved linear params into pop and the
  // costs (as Evaluator::costs: residual mean + lambda * penalty). needs_check(j) is true when
  // the statistics cannot rule out a negative prediction of candidate j: its cost must then
  // be confirmed by Evaluator::residual_sums (+inf when any prediction is negative).
  void solve(Eigen::Ref<Eigen::MatrixXd> pop, const Eigen::MatrixXd& stats, double offset,
             double total_weight, Eigen::Ref<Eigen::VectorXd> costs,
             std::vector<bool>& needs_check) const;

 private:
  void accumulate_blocks(const Eigen::Ref<const Eigen::MatrixXd>& pop, std::size_t b0,
                         std::size_t b1, Eigen::MatrixXd& stats, std::size_t thread) const;
  void plan_blocks();
  std::size_t pair_index(std::size_t i, std::size_t j) const;
  // One candidate's least-squares problem: its statistics, the penalty and the pools.
  BlockQP problem(const Eigen::Ref<const Eigen::VectorXd>& st,
                  const Eigen::Ref<const Eigen::VectorXd>& x, double total_weight) const;
  void add_pooling(BlockQP& q, const Eigen::Ref<const Eigen::VectorXd>& x,
                   double total_weight) const;
  Eigen::Index linear_index(std::size_t param) const;  // -1: searched

  class Pass;
  friend class Pass;

  const Evaluator* ev_;
  Separation sep_;
  std::size_t k_ = 0;                                         // linear params
  std::vector<std::unique_ptr<detail::TapeKernel>> kernels_;  // bases, then the offset
  std::vector<bool> varies_;  // per kernel: reads a param (evaluated per candidate)
  bool has_offset_ = false;
  // The statistics kept: the pairs (i, j), i <= j, of vectors a_0..a_{k-1}, t whose product
  // can be nonzero (not two different groups' constants), in row-major order; slot_ maps a
  // pair to its place (-1: always 0).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::vector<std::int32_t> slot_;
  // Where each linear param sits in the BlockQP: its group's block (-1: the hub) and place.
  std::vector<std::int32_t> block_;
  std::vector<Eigen::Index> local_, block_sizes_;
  std::vector<Eigen::Index> place_;  // each linear param's index in the BlockQP's order
  // Per kernel, the rows [first, last) where it can be nonzero.
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
  Eigen::Index hub_size_ = 0;
  // Per thread of statistics(): the sums over the vectors that read no param, the same in
  // every call (a polish calls with one or two candidates, where they would dominate).
  // Filled by the first call; each thread writes only its own entry.
  mutable std::vector<Eigen::VectorXd> fixed_sums_;
};

}  // namespace perfit::model
