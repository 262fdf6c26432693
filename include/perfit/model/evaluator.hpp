// The population-batched evaluator: the fit's hot path. It reads each block of rows once per
// generation and evaluates every candidate on it while the block is in cache; per-row work
// that does not depend on the params (d/(b*p), log2(p), log(b), 1/meas) is done once per
// block, not once per candidate; the residual is summed in the same pass, so predictions are
// never stored. A NaN, inf or negative prediction makes that candidate's cost infinite.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <utility>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/cost.hpp"
#include "perfit/model/model.hpp"

namespace perfit::model {

namespace detail {
class TapeKernel;
}

struct EvaluatorOptions {
  std::size_t block_rows =
      1024;              // rows per block (measured best: 0.93x hand-written vs 0.79x at 256)
  unsigned threads = 1;  // rows are split among threads; sums combine in fixed order
  // Per-row weights multiplied into the weight column's (k-fold: 0 on held-out rows;
  // bootstrap: multinomial counts); empty: all 1. Must be finite and >= 0.
  Eigen::VectorXd row_weights;
};

class Evaluator {
 public:
  // Binds the model to the table's columns (converted to double once) and its target.
  // A table without a 'target' attribute gives a prediction-only evaluator (predict and
  // term_values work; the cost functions must not be called).
  // Throws: DataError for a missing/non-numeric column, a target that is not > 0 and finite,
  // or a weight column with negative or non-finite values.
  Evaluator(const Model& model, const data::MeasurementTable& table, CostOptions cost = {},
            EvaluatorOptions options = {});
  ~Evaluator();
  Evaluator(Evaluator&&) noexcept;

  std::size_t rows() const { return n_rows_; }
  bool has_target() const { return measured_.size() > 0; }
  const Model& model() const { return *model_; }
  const CostOptions& cost_options() const { return cost_; }
  const Eigen::VectorXd& measured() const { return measured_; }
  const Eigen::VectorXd& inv_measured() const { return inv_measured_; }
  // Per-row weights in effect (weight column times row weights); empty: all 1.
  const Eigen::VectorXd& weights() const { return weights_; }
  const EvaluatorOptions& options() const { return options_; }
  // Column pointers in model().columns_used() order, for kernels over the same rows.
  const double* const* column_data() const { return column_ptrs_.data(); }
  // Per column of column_data(), the rows [first, last) outside which it is 0.
  const std::pair<std::size_t, std::size_t>* column_spans() const { return column_spans_.data(); }
  // Values of model().columns_used()[i] for every row, as double.
  const std::vector<double>& column_values(std::size_t i) const { return columns_[i]; }

  // pop: n_params x n, one candidate (params in their own units) per column.
  // sums(j) = sum_i w_i * res_ij, +inf where any prediction is NaN, inf or negative.
  void residual_sums(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                     Eigen::Ref<Eigen::VectorXd> sums) const;
  double weight_sum() const { return weight_sum_; }
  // costs(j) = sums(j)/weight_sum + lambda * penalty(pop.col(j)).
  void costs(const Eigen::Ref<const Eigen::MatrixXd>& pop, Eigen::Ref<Eigen::VectorXd> costs) const;
  // The cost formula, once: residual sums (of this rank's rows, or reduced over the ranks that
  // share a set) become costs in place, with total_weight the whole set's weight sum.
  void costs_from_sums(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                       Eigen::Ref<Eigen::VectorXd> sums, double total_weight) const;
  double cost(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  double penalty(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  // Predictions for every row.
  Eigen::VectorXd predict(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  // The same into out (rows() values): no allocation, for callers that predict repeatedly.
  void predict(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> out) const;
  // rows x terms: value of each top-level additive term (model().term_names()) per row.
  Eigen::MatrixXd term_values(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  // Residuals whose squared norm is cost(x): one per row (sqrt(w_i/W) * e_i, with e_i the
  // relative, log or plain error; sqrt of it for ape), then one per param for the penalty.
  // For least-squares polishing.
  Eigen::VectorXd residual_vector(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  // The same for a slice of the rows of a larger set: rows scaled by the whole set's weight
  // sum, penalty entries only when asked (on exactly one of the ranks sharing the set).
  Eigen::VectorXd residual_vector(const Eigen::Ref<const Eigen::VectorXd>& x, double total_weight,
                                  bool with_penalty) const;

 private:
  template <class Sink>
  void for_blocks(const detail::TapeKernel& k, const Eigen::Ref<const Eigen::MatrixXd>& pop,
                  std::size_t b0, std::size_t b1, Sink&& sink) const;

 public:
  // Residual sum of n stored predictions from row `begin` (used when the model's result is
  // not a fused lincomb). Public only so the evaluator's internal sinks can reach it.
  double block_residual(const double* pred, std::size_t begin, std::size_t n) const;

 private:
  const Model* model_;
  std::size_t n_rows_ = 0;
  CostOptions cost_;
  EvaluatorOptions options_;
  std::vector<std::vector<double>> columns_;  // columns_used() as double
  std::vector<const double*> column_ptrs_;
  std::vector<std::pair<std::size_t, std::size_t>> column_spans_;
  Eigen::VectorXd measured_, inv_measured_, log_measured_, weights_;
  double weight_sum_ = 0.0;
  std::unique_ptr<detail::TapeKernel> kernel_;
  std::vector<std::unique_ptr<detail::TapeKernel>> term_kernels_;
};

}  // namespace perfit::model
