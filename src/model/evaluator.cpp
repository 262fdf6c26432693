#include "perfit/model/evaluator.hpp"

#include <cmath>
#include <limits>
#include <thread>

#include "block_threads.hpp"
#include "fused_cost.hpp"
#include "lincomb_kernel.hpp"
#include "perfit/core/assert.hpp"
#include "perfit/core/error.hpp"
#include "tape_kernel.hpp"

namespace perfit::model {

using CMap = Eigen::Map<const Eigen::ArrayXd>;

Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;

Evaluator::Evaluator(const Model& model, const data::MeasurementTable& table, CostOptions cost,
                     EvaluatorOptions options)
    : model_(&model), cost_(std::move(cost)), options_(options) {
  cost_.validate();
  if (options_.block_rows == 0) options_.block_rows = 1024;
  options_.block_rows =
      (options_.block_rows + 7) / 8 * 8;  // every block starts aligned (detail::Scratch)
  if (options_.threads == 0) options_.threads = 1;
  for (const auto& name : model.columns_used()) {
    const data::Column& c = table.column(name);
    if (!c.is_numeric()) {
      throw DataError("model '" + model.spec().name + "' uses column '" + name +
                      "', which holds text; a model can only use numeric columns");
    }
    columns_.push_back(c.to_double());
  }
  for (const auto& c : columns_) {
    column_ptrs_.push_back(c.data());
    std::size_t first = 0, last = c.size();
    while (first < last && c[first] == 0.0) ++first;
    while (last > first && c[last - 1] == 0.0) --last;
    column_spans_.emplace_back(first, last);
  }

  n_rows_ = table.rows();
  kernel_ = std::make_unique<detail::TapeKernel>(model.tape());
  for (const auto& t : model.term_tapes()) {
    term_kernels_.push_back(std::make_unique<detail::TapeKernel>(t));
  }
  const std::string target = table.target();
  if (target.empty()) return;  // prediction only
  const std::vector<double> y = table.column(target).to_double();
  const std::size_t n = y.size();
  if (n == 0) throw DataError("the set has no rows to fit");
  measured_ = Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::isfinite(y[i]) && y[i] > 0.0)) {
      throw DataError("target column '" + target + "' row " + std::to_string(i) + " is " +
                      std::to_string(y[i]) +
                      "; measured times must be finite and > 0 "
                      "(re-import with --drop-invalid)");
    }
  }
  inv_measured_ = measured_.cwiseInverse();
  log_measured_ = measured_.array().log().matrix();
  if (!cost_.weight_column.empty()) {
    const std::vector<double> w = table.column(cost_.weight_column).to_double();
    for (std::size_t i = 0; i < n; ++i) {
      if (!(std::isfinite(w[i]) && w[i] >= 0.0)) {
        throw DataError("weight column '" + cost_.weight_column + "' row " + std::to_string(i) +
                        " is " + std::to_string(w[i]) + "; weights must be finite and >= 0");
      }
    }
    weights_ = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(n));
    weight_sum_ = weights_.sum();
    if (!(weight_sum_ > 0.0))
      throw DataError("weight column '" + cost_.weight_column + "' is all zero");
  } else {
    weight_sum_ = static_cast<double>(n);
  }
  const Eigen::VectorXd& rw = options_.row_weights;
  if (rw.size() > 0) {
    if (static_cast<std::size_t>(rw.size()) != n || !rw.allFinite() || (rw.array() < 0).any()) {
      throw DataError("row weights: " + std::to_string(rw.size()) + " given for " +
                      std::to_string(n) + " rows; each must be finite and >= 0");
    }
    weights_ = weights_.size() > 0 ? Eigen::VectorXd(weights_.cwiseProduct(rw)) : rw;
    weight_sum_ = weights_.sum();  // may be 0 on one rank's slice; the fit checks the total
  }
}

// Eigen's reductions keep several vector accumulators; a separate min pass over the block
// (in L1) is cheaper than blending +inf into every row (measured: 0.59 vs 0.49 of the
// hand-written loop's speed). NaN predictions propagate into the sum and become +inf later.
double Evaluator::block_residual(const double* pred, std::size_t begin, std::size_t n) const {
  const auto ni = static_cast<Eigen::Index>(n);
  const auto b = static_cast<Eigen::Index>(begin);
  const CMap r(pred, ni);
  if (r.minCoeff() < 0.0) return std::numeric_limits<double>::infinity();
  const bool weighted = weights_.size() > 0;
  auto sum = [&](const auto& e) {
    return weighted ? (e * weights_.array().segment(b, ni)).sum() : e.sum();
  };
  switch (cost_.residual) {
    case Residual::rel_sq:
      return sum((r * inv_measured_.array().segment(b, ni) - 1.0).square());
    case Residual::sq_log:
      return sum((r.log() - log_measured_.array().segment(b, ni)).square());
    case Residual::ape:
      return sum((r * inv_measured_.array().segment(b, ni) - 1.0).abs());
    case Residual::sq:
      return sum((r - measured_.array().segment(b, ni)).square());
  }
  return 0.0;
}

template <class Sink>
void Evaluator::for_blocks(const detail::TapeKernel& k,
                           const Eigen::Ref<const Eigen::MatrixXd>& pop, std::size_t b0,
                           std::size_t b1, Sink&& sink) const {
  std::vector<double> scal;
  k.scalars(pop, scal);
  const std::size_t block = options_.block_rows;
  const std::size_t n_rows = rows();
  // Fewer rows than a block: scratch for those rows only, its buffers still a whole number of
  // cache lines apart (aligned: the same path for every row, tape_kernel.hpp). Zeroing a block
  // of 1,024 rows per buffer to predict a call path's 25 was 1.2% of a selection over 10^4.
  const std::size_t stride = std::min(block, (n_rows + 7) / 8 * 8);
  detail::Scratch scratch(k.scratch_size(std::max<std::size_t>(stride, 1)));
  for (std::size_t blk = b0; blk < b1; ++blk) {
    sink.begin = blk * block;
    sink.n = std::min(block, n_rows - sink.begin);
    k.run(column_ptrs_.data(), column_spans_.data(), sink.begin, sink.n, stride, scal.data(),
          static_cast<std::size_t>(pop.cols()), scratch.data(), sink);
  }
}

namespace {

// Accumulates each candidate's residual sum.
struct CostSink {
  const Evaluator* ev;
  detail::FusedCost fused;
  const double *inv, *y, *logy, *w;
  Eigen::VectorXd* acc;
  std::size_t begin = 0, n = 0;
  double (Evaluator::*block_residual)(const double*, std::size_t, std::size_t) const;

  void values(std::size_t j, const double* pred) {
    (*acc)(static_cast<Eigen::Index>(j)) += (ev->*block_residual)(pred, begin, n);
  }
  void lincomb(std::size_t j, const detail::LinResolved* r, std::size_t nr, double offset) {
    (*acc)(static_cast<Eigen::Index>(j)) += fused(w != nullptr, r, nr, offset, n, inv + begin,
                                                  y + begin, logy + begin, w ? w + begin : nullptr);
  }
};

// Stores the predictions of one candidate (a population of one) into out.
struct StoreSink {
  double* out;
  std::size_t begin = 0, n = 0;
  void values(std::size_t, const double* pred) { std::copy(pred, pred + n, out + begin); }
  void lincomb(std::size_t, const detail::LinResolved* r, std::size_t nr, double offset) {
    detail::StoreValues store{out + begin};
    detail::lincomb_rows(r, nr, offset, n, store);
  }
};

}  // namespace

void Evaluator::residual_sums(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                              Eigen::Ref<Eigen::VectorXd> sums) const {
  PERFIT_ASSERT(has_target(), "cost of a prediction-only evaluator");
  const std::size_t n_cand = static_cast<std::size_t>(pop.cols());
  const std::size_t n_blocks = (rows() + options_.block_rows - 1) / options_.block_rows;
  const std::size_t threads = detail::threads_for(options_.threads, n_blocks);
  std::vector<Eigen::VectorXd> partial(threads,
                                       Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n_cand)));
  const detail::FusedCost fused = detail::fused_cost_for(cost_.residual);
  auto work = [&](std::size_t t) {
    CostSink sink{this,
                  fused,
                  inv_measured_.data(),
                  measured_.data(),
                  log_measured_.data(),
                  weights_.size() > 0 ? weights_.data() : nullptr,
                  &partial[t],
                  0,
                  0,
                  &Evaluator::block_residual};
    for_blocks(*kernel_, pop, n_blocks * t / threads, n_blocks * (t + 1) / threads, sink);
  };
  detail::run_threads(threads, work);
  // Combine in thread order: the same thread count gives bit-identical sums.
  Eigen::VectorXd total = partial[0];
  for (std::size_t t = 1; t < threads; ++t) total += partial[t];
  for (Eigen::Index j = 0; j < total.size(); ++j) {
    if (!std::isfinite(total(j))) total(j) = std::numeric_limits<double>::infinity();
  }
  sums = total;
}

double Evaluator::penalty(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  if (cost_.penalty == Penalty::none || cost_.lambda == 0.0) return 0.0;
  double p = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double u = model_->to_unit(static_cast<std::size_t>(i), x(i));
    p += cost_.penalty == Penalty::l1 ? std::fabs(u) : u * u;
  }
  return p;
}

void Evaluator::costs(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                      Eigen::Ref<Eigen::VectorXd> costs) const {
  residual_sums(pop, costs);
  costs_from_sums(pop, costs, weight_sum_);
}

void Evaluator::costs_from_sums(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                                Eigen::Ref<Eigen::VectorXd> sums, double total_weight) const {
  for (Eigen::Index j = 0; j < sums.size(); ++j) {
    sums(j) =
        sums(j) / total_weight + cost_.lambda * penalty(pop.col(j)) + model_->pooling(pop.col(j));
  }
}

double Evaluator::cost(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  Eigen::VectorXd c(1);
  costs(x, c);
  return c(0);
}

Eigen::VectorXd Evaluator::predict(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows()));
  predict(x, out);
  return out;
}

void Evaluator::predict(const Eigen::Ref<const Eigen::VectorXd>& x,
                        Eigen::Ref<Eigen::VectorXd> out) const {
  PERFIT_ASSERT(static_cast<std::size_t>(out.size()) == rows(), "predict: output size");
  const std::size_t n_blocks = (rows() + options_.block_rows - 1) / options_.block_rows;
  StoreSink sink{out.data()};
  for_blocks(*kernel_, x, 0, n_blocks, sink);
}

Eigen::VectorXd Evaluator::residual_vector(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return residual_vector(x, weight_sum_, true);
}

Eigen::VectorXd Evaluator::residual_vector(const Eigen::Ref<const Eigen::VectorXd>& x,
                                           double total_weight, bool with_penalty) const {
  PERFIT_ASSERT(has_target(), "residuals of a prediction-only evaluator");
  const Eigen::ArrayXd pred = predict(x).array();
  const Eigen::Index n = static_cast<Eigen::Index>(rows());
  const bool pen = with_penalty && cost_.penalty != Penalty::none && cost_.lambda > 0;
  Eigen::Index pooled = 0;
  if (with_penalty) {
    for (const auto& p : model_->pools()) pooled += static_cast<Eigen::Index>(p.params.size());
  }
  Eigen::VectorXd r(n + (pen ? x.size() : 0) + pooled);
  Eigen::ArrayXd e;
  switch (cost_.residual) {
    case Residual::rel_sq:
      e = pred * inv_measured_.array() - 1.0;
      break;
    case Residual::sq_log:
      e = pred.log() - log_measured_.array();
      break;
    case Residual::ape:
      e = (pred * inv_measured_.array() - 1.0).abs().sqrt();
      break;
    case Residual::sq:
      e = pred - measured_.array();
      break;
  }
  // Negative predictions are infeasible (cost +inf), whatever the residual kind.
  e = (pred < 0.0).select(std::numeric_limits<double>::quiet_NaN(), e);
  Eigen::ArrayXd scale = Eigen::ArrayXd::Constant(n, 1.0 / std::sqrt(total_weight));
  if (weights_.size() > 0) scale = (weights_.array() / total_weight).sqrt();
  r.head(n) = (e * scale).matrix();
  if (pen) {
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      const double u = model_->to_unit(static_cast<std::size_t>(k), x(k));
      r(n + k) = cost_.penalty == Penalty::l2 ? std::sqrt(cost_.lambda) * u
                                              : std::sqrt(cost_.lambda * std::fabs(u));
    }
  }
  // Each pooled copy's distance from the copies' mean: the squares sum to Model::pooling.
  Eigen::Index at = n + (pen ? x.size() : 0);
  for (const auto& p : model_->pools()) {
    if (!with_penalty) break;
    double mean = 0.0;
    for (const std::size_t i : p.params) mean += x(static_cast<Eigen::Index>(i));
    mean /= static_cast<double>(p.params.size());
    for (const std::size_t i : p.params)
      r(at++) = std::sqrt(p.weight) * (x(static_cast<Eigen::Index>(i)) - mean);
  }
  return r;
}

Eigen::MatrixXd Evaluator::term_values(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows()),
                      static_cast<Eigen::Index>(term_kernels_.size()));
  const std::size_t n_blocks = (rows() + options_.block_rows - 1) / options_.block_rows;
  for (std::size_t t = 0; t < term_kernels_.size(); ++t) {
    StoreSink sink{out.col(static_cast<Eigen::Index>(t)).data()};
    for_blocks(*term_kernels_[t], x, 0, n_blocks, sink);
  }
  return out;
}

}  // namespace perfit::model
