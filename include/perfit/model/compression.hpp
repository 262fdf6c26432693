// Exact compression of repeated configurations. Real measurement sets repeat configurations
// (several runs, many iterations per run). For the squared residuals the cost over the rows
// of one configuration is a quadratic in its one prediction, so it equals one weighted row
// plus a constant:
//   rel_sq: sum_i w_i (p/y_i - 1)^2   = W_c (p/Y_c - 1)^2 + K_c,  with A = sum w/y^2,
//           B = sum w/y: Y_c = B/A, W_c = B^2/A, K_c = sum_i w_i (Y_c/y_i - 1)^2
//   sq:     sum_i w_i (p - y_i)^2     = W_c (p - Y_c)^2 + K_c,    W_c = sum w, Y_c = mean_w y
//   sq_log: sum_i w_i (log p - log y_i)^2: the same in log y (Y_c = geometric mean_w)
// K_c is each configuration's weighted sum of squared deviations from Y_c (rel_sq: of y with
// weights w/y^2; sq_log: of log y), summed as the rows come about the configuration's first
// value, never as a difference of large sums. The model is then evaluated once per distinct
// configuration, exactly up to rounding. `ape` stays per row.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/cost.hpp"
#include "perfit/model/metrics.hpp"

namespace perfit::model {

// Per configuration, over its rows (unweighted): what the metrics and the noise estimate of a
// fit that never held its rows need (a streamed fit, docs/stores.md "Larger than memory").
// RMSE, R^2, the largest error and the noise come out exact; MAPE and GMAE are exact for a
// configuration whose rows all lie on one side of its prediction, else estimated from its
// relative errors' mean and variance as for normal errors (metric_sums below).
struct ConfigurationMoments {
  std::vector<double> n, mean, m2;        // of the target: count, mean, sum of squared deviations
  std::vector<double> log_mean, log_m2;   // of its log
  std::vector<double> inv_sum, inv2_sum;  // sums of 1/y and 1/y^2
  std::vector<double> min, max;
  bool empty() const { return n.empty(); }
};

struct CompressedRows {
  data::MeasurementTable table;  // one row per configuration: the factors, target Y_c, weight W_c
  double offset = 0.0;           // sum of K_c: added to every candidate's residual sum
  double weight_sum = 0.0;       // of the original rows (the cost is normalised by it)
  std::size_t rows = 0, configurations = 0;
  ConfigurationMoments moments;  // per row of `table`; empty unless asked for
};

inline constexpr const char* kCompressedWeight = "__perfit_weight";

// Compresses rows as they come, a chunk at a time, in memory that grows with the distinct
// configurations, not the rows: a store larger than memory is compressed as it is read, and
// the same rows added in any chunking give the same result bit for bit (each row is added in
// order; K_c is summed about each configuration's first value, never as a difference of large
// sums).
// factors: the columns the model reads; rows are grouped by the exact bits of those values.
// Precondition: cost.residual is not ape; the target and weights of every row added are finite
// and positive (the evaluator's checks have passed).
class Compressor {
 public:
  Compressor(std::vector<std::string> factors, const CostOptions& cost, bool moments = false);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  // row_weights multiply the weight column's (empty: 1).
  void add(const data::MeasurementTable& rows, const std::vector<double>& row_weights = {});
  std::size_t rows() const { return rows_; }
  std::size_t configurations() const;
  // The configurations in order of first appearance (a joint fit's groups together), named
  // like the rows (target) and carrying their attributes.
  CompressedRows finish(const std::string& target, const data::Attributes& attributes) const;

 private:
  struct State;
  std::vector<std::string> factors_;
  CostOptions cost_;
  std::size_t rows_ = 0;
  std::unique_ptr<State> state_;
};

// The rows of t compressed in one chunk.
CompressedRows compress_rows(const data::MeasurementTable& t,
                             const std::vector<std::string>& factors, const CostOptions& cost,
                             const std::vector<double>& row_weights = {});

// Distinct configurations of the factors, without building the table (to decide if it pays).
std::size_t count_configurations(const data::MeasurementTable& t,
                                 const std::vector<std::string>& factors);

// The metric sums of the rows the configurations stand for, from predictions at each
// configuration (see ConfigurationMoments for which are exact).
MetricSums metric_sums(const Eigen::VectorXd& pred, const ConfigurationMoments& m);

}  // namespace perfit::model
