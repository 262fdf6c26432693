#include "perfit/model/projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "block_threads.hpp"
#include "lincomb_kernel.hpp"
#include "perfit/core/error.hpp"
#include "perfit/model/grouped_model.hpp"
#include "tape_kernel.hpp"

namespace perfit::model {

namespace {

bool reads_param(const Tape& t) {
  return std::any_of(t.code.begin(), t.code.end(),
                     [](const Instr& i) { return i.op == OpCode::param; });
}

// Stores each candidate's values of one block at out + j*stride.
struct BufferSink {
  double* out;
  std::size_t stride, n;
  void values(std::size_t j, const double* v) { std::copy(v, v + n, out + j * stride); }
  void lincomb(std::size_t j, const detail::LinResolved* r, std::size_t nr, double offset) {
    detail::StoreValues store{out + j * stride};
    detail::lincomb_rows(r, nr, offset, n, store);
  }
};

// A fixed summation order whatever the pointers' alignment. `omp simd reduction` let GCC peel
// iterations until x was aligned, so the order, and the last bits of the normal equations,
// depended on where malloc put the block: an underdetermined fit (pmnf on 3 scales) took
// another path in 1 of 16 runs that differed only in the size of the environment.
double dot(const double* x, const double* y, const double* w, std::size_t n) {
  using namespace Eigen::internal;
  using detail::Packet;
  constexpr std::size_t kStep = 2 * detail::kPacket;
  Packet a0 = pset1<Packet>(0.0), a1 = a0;
  std::size_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    const std::size_t j = i + detail::kPacket;
    Packet p0 = pmul(ploadu<Packet>(x + i), ploadu<Packet>(y + i));
    Packet p1 = pmul(ploadu<Packet>(x + j), ploadu<Packet>(y + j));
    if (w) {
      p0 = pmul(p0, ploadu<Packet>(w + i));
      p1 = pmul(p1, ploadu<Packet>(w + j));
    }
    a0 = padd(a0, p0);
    a1 = padd(a1, p1);
  }
  double s = predux(padd(a0, a1));
  for (; i < n; ++i) s += (w ? w[i] : 1.0) * x[i] * y[i];
  return s;
}

void count_signs(const double* g, std::size_t n, double& neg, double& pos) {
  std::size_t a = 0, b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    a += g[i] < 0.0;
    b += g[i] > 0.0;
  }
  neg += static_cast<double>(a);
  pos += static_cast<double>(b);
}

}  // namespace

std::vector<bool> projectable_params(const Model& m, const CostOptions& cost) {
  std::vector<bool> ok(m.n_params(), true);
  if (cost.residual != Residual::rel_sq && cost.residual != Residual::sq)
    return std::vector<bool>(m.n_params(), false);
  if (cost.penalty == Penalty::none || cost.lambda == 0.0) return ok;
  // The penalty of a log-searched constant is not a quadratic in it.
  for (std::size_t i = 0; i < m.n_params(); ++i) ok[i] = !m.spec().params[i].log_scale;
  return ok;
}

ProjectedEvaluator::~ProjectedEvaluator() = default;

ProjectedEvaluator::ProjectedEvaluator(const Evaluator& ev, const Separation& sep)
    : ev_(&ev), sep_(sep), k_(sep.linear.size()) {
  const std::vector<bool> ok = projectable_params(ev.model(), ev.cost_options());
  if (!sep_.separable()) throw ConfigError("separable: the model has no linear constant");
  for (const std::size_t i : sep_.linear) {
    if (!ok[i]) {
      throw ConfigError("separable: param '" + ev.model().param_names()[i] +
                        "' cannot be solved by least squares under cost.residual " +
                        to_string(ev.cost_options().residual) + " and this penalty");
    }
  }
  for (const Tape& t : sep_.basis) kernels_.push_back(std::make_unique<detail::TapeKernel>(t));
  has_offset_ = sep_.offset.has_value();
  if (has_offset_) kernels_.push_back(std::make_unique<detail::TapeKernel>(*sep_.offset));
  for (const Tape& t : sep_.basis) varies_.push_back(reads_param(t));
  if (has_offset_) varies_.push_back(reads_param(*sep_.offset));
  plan_blocks();
}

// A linear param that is a multiple of a group's indicator (model/grouped_model.hpp: one-hot
// columns, one group per row) meets only its group's rows: its products with another group's
// are 0 and are neither summed nor stored, and the least-squares problem is block diagonal.
void ProjectedEvaluator::plan_blocks() {
  const auto& columns = ev_->model().columns_used();
  std::vector<std::int32_t> indicator(k_, -1);
  std::vector<std::int32_t> seen;  // indicator columns, in the order first met
  for (std::size_t a = 0; a < k_; ++a) {
    for (const auto c : sep_.multiple_of[a]) {
      if (!is_group_indicator(columns[static_cast<std::size_t>(c)])) continue;
      indicator[a] = c;
      if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
      break;
    }
  }
  // Each kernel's rows: a group's basis from its indicator's first to last 1 (all rows when
  // they are not grouped; compression orders a joint fit's configurations by group).
  spans_.assign(kernels_.size(), {0, ev_->rows()});
  for (std::size_t a = 0; a < k_; ++a) {
    if (indicator[a] < 0) continue;
    const std::vector<double>& ind = ev_->column_values(static_cast<std::size_t>(indicator[a]));
    const auto first = std::find_if(ind.begin(), ind.end(), [](double v) { return v != 0.0; });
    const auto last = std::find_if(ind.rbegin(), ind.rend(), [](double v) { return v != 0.0; });
    spans_[a] = first == ind.end() ? std::pair<std::size_t, std::size_t>{0, 0}
                                   : std::pair<std::size_t, std::size_t>{
                                         static_cast<std::size_t>(first - ind.begin()),
                                         static_cast<std::size_t>(ind.rend() - last)};
  }
  block_.assign(k_, -1);
  local_.assign(k_, 0);
  block_sizes_.assign(seen.size(), 0);
  for (std::size_t a = 0; a < k_; ++a) {
    if (indicator[a] < 0) {
      local_[a] = hub_size_++;
      continue;
    }
    const auto b =
        static_cast<std::size_t>(std::find(seen.begin(), seen.end(), indicator[a]) - seen.begin());
    block_[a] = static_cast<std::int32_t>(b);
    local_[a] = block_sizes_[b]++;
  }
  std::vector<Eigen::Index> starts;
  Eigen::Index hub = 0;
  for (const Eigen::Index k : block_sizes_) {
    starts.push_back(hub);
    hub += k;
  }
  place_.resize(k_);
  for (std::size_t a = 0; a < k_; ++a)
    place_[a] = (block_[a] < 0 ? hub : starts[static_cast<std::size_t>(block_[a])]) + local_[a];
  const std::size_t n = k_ + 1;
  slot_.assign(n * n, -1);
  pairs_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) {
      if (i < k_ && j < k_ && block_[i] >= 0 && block_[j] >= 0 && block_[i] != block_[j]) continue;
      slot_[i * n + j] = static_cast<std::int32_t>(pairs_.size());
      pairs_.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j));
    }
  }
}

std::size_t ProjectedEvaluator::pair_index(std::size_t i, std::size_t j) const {
  return static_cast<std::size_t>(slot_[i * (k_ + 1) + j]);
}

std::size_t ProjectedEvaluator::stats_size() const { return pairs_.size() + 2 * k_ + 1; }

namespace {

// The rows of a block, or of the whole set when it is smaller (rounded up to keep blocks
// aligned): the buffers are allocated per call and scale with it, which on a small set (a
// joint fit's folds) made zeroing them most of the work.
std::size_t block_of(const Evaluator& ev) {
  return std::min(ev.options().block_rows, (ev.rows() + 7) / 8 * 8);
}

}  // namespace

// One thread's pass over its blocks: the buffers, and the steps of one block.
class ProjectedEvaluator::Pass {
 public:
  // cached: the fixed sums of these blocks from an earlier call, or empty (then computed).
  Pass(const ProjectedEvaluator& pe, const Eigen::Ref<const Eigen::MatrixXd>& pop,
       Eigen::MatrixXd& stats, Eigen::VectorXd& cached)
      : pe_(pe),
        ev_(*pe.ev_),
        stats_(stats),
        cached_(cached),
        k_(pe.k_),
        nv_(pe.k_ + 1),
        n_cand_(static_cast<std::size_t>(pop.cols())),
        block_(block_of(ev_)),
        rel_(ev_.cost_options().residual == Residual::rel_sq),
        t_varies_(pe.has_offset_ && pe.varies_[pe.k_]),
        fixed_(Eigen::VectorXd::Zero(stats.rows())),
        u_(nv_) {
    const std::size_t nk = pe.kernels_.size();
    scal_.resize(nk);
    scratch_.resize(nk);
    vals_.resize(nk);
    len_.resize(nk);
    off_.assign(nk, 0);
    cnt_.assign(nk, 0);
    for (std::size_t q = 0; q < nk; ++q) {
      // A group's basis is stored for its rows only: G groups' bases take one block's memory.
      // (Whole packets, as block_of's blocks: every candidate's buffer stays aligned.)
      len_[q] = std::min(block_, (pe.spans_[q].second - pe.spans_[q].first + 7) / 8 * 8);
      pe.kernels_[q]->scalars(pe.varies_[q] ? pop : pop.leftCols(1), scal_[q]);
      scratch_[q].resize(pe.kernels_[q]->scratch_size(std::max<std::size_t>(len_[q], 1)));
      vals_[q].resize((pe.varies_[q] ? n_cand_ : 1) * len_[q]);
    }
    t_fixed_.resize(block_);
    if (t_varies_) t_var_.resize(n_cand_ * block_);
    const std::size_t pairs = pe.pairs_.size();
    neg0_ = pairs;
    pos0_ = pairs + k_;
    negoff_ = pairs + 2 * k_;
  }

  void block(std::size_t blk) {
    begin_ = blk * block_;
    n_ = std::min(block_, ev_.rows() - begin_);
    const double* w = ev_.weights().size() > 0 ? ev_.weights().data() + begin_ : nullptr;
    // Each vector on its rows in this block (a group's basis: its group's), 0 elsewhere.
    for (std::size_t q = 0; q < pe_.kernels_.size(); ++q) {
      const auto [lo, hi] = pe_.spans_[q];
      const std::size_t a = std::max(lo, begin_), b = std::min(hi, begin_ + n_);
      off_[q] = a - begin_;
      cnt_[q] = b > a ? b - a : 0;
      if (cnt_[q] == 0) continue;
      BufferSink sink{vals_[q].data(), len_[q], cnt_[q]};
      pe_.kernels_[q]->run(ev_.column_data(), ev_.column_spans(), a, cnt_[q], len_[q],
                           scal_[q].data(), pe_.varies_[q] ? n_cand_ : 1, scratch_[q].data(), sink);
    }
    // Vectors that do not depend on the candidate: signs, scaling and products once per block.
    for (std::size_t q = 0; q < pe_.kernels_.size(); ++q) {
      if (!pe_.varies_[q] && cnt_[q] > 0) prepare(q, vals_[q].data(), fixed_, t_fixed_.data());
    }
    if (!pe_.has_offset_) make_t(nullptr, t_fixed_.data());
    for (std::size_t i = 0; i < nv_; ++i) u_[i] = i < k_ ? vals_[i].data() : t_fixed_.data();
    if (cached_.size() == 0) products(fixed_, w, true);
    // Per candidate: only the products that involve a vector that depends on it.
    for (std::size_t c = 0; c < n_cand_; ++c) {
      auto col = stats_.col(static_cast<Eigen::Index>(c));
      double* t = t_varies_ ? t_var_.data() + c * block_ : t_fixed_.data();
      for (std::size_t q = 0; q < pe_.kernels_.size(); ++q) {
        if (pe_.varies_[q] && cnt_[q] > 0) prepare(q, vals_[q].data() + c * len_[q], col, t);
      }
      for (std::size_t i = 0; i < nv_; ++i) {
        u_[i] = i < k_ ? vals_[i].data() + (pe_.varies_[i] ? c * len_[i] : 0) : t;
      }
      products(col, w, false);
    }
  }

  void finish() {
    if (cached_.size() == 0) cached_ = fixed_;
    stats_.colwise() += cached_;
  }

 private:
  bool is_fixed(std::size_t i) const { return i < k_ ? !pe_.varies_[i] : !t_varies_; }

  // The signs of a basis (or of the offset), then its values as a = g/m (rel_sq) or g, or the
  // offset's as t = 1 - g0/m or m - g0.
  template <class Stats>
  void prepare(std::size_t q, double* g, Stats&& counts, double* t) {
    if (q < k_) {
      count_signs(g, cnt_[q], counts(static_cast<Eigen::Index>(neg0_ + q)),
                  counts(static_cast<Eigen::Index>(pos0_ + q)));
      if (rel_) {
        const double* inv = ev_.inv_measured().data() + begin_ + off_[q];
        for (std::size_t i = 0; i < cnt_[q]; ++i) g[i] *= inv[i];
      }
    } else {
      double unused = 0.0;
      count_signs(g, n_, counts(static_cast<Eigen::Index>(negoff_)), unused);
      make_t(g, t);
    }
  }

  void make_t(const double* g0, double* t) const {
    const double* inv = ev_.inv_measured().data() + begin_;
    const double* y = ev_.measured().data() + begin_;
    for (std::size_t i = 0; i < n_; ++i) {
      const double off = g0 ? g0[i] : 0.0;
      t[i] = rel_ ? 1.0 - off * inv[i] : y[i] - off;
    }
  }

  // sum w u_i u_j into out, over the pairs whose vectors are all fixed (fixed == true) or not.
  // Over the rows both vectors have in this block (t: all of them).
  template <class Out>
  void products(Out&& out, const double* w, bool fixed) {
    for (std::size_t p = 0; p < pe_.pairs_.size(); ++p) {
      const auto [i, j] = pe_.pairs_[p];
      if ((is_fixed(i) && is_fixed(j)) != fixed) continue;
      const std::size_t oi = i < k_ ? off_[i] : 0, oj = j < k_ ? off_[j] : 0;
      const std::size_t a = std::max(oi, oj),
                        b = std::min(oi + (i < k_ ? cnt_[i] : n_), oj + (j < k_ ? cnt_[j] : n_));
      if (b <= a) continue;
      out(static_cast<Eigen::Index>(p)) +=
          dot(u_[i] + (a - oi), u_[j] + (a - oj), w ? w + a : nullptr, b - a);
    }
  }

  const ProjectedEvaluator& pe_;
  const Evaluator& ev_;
  Eigen::MatrixXd& stats_;
  Eigen::VectorXd& cached_;
  std::size_t k_, nv_, n_cand_, block_;
  bool rel_, t_varies_;
  Eigen::VectorXd fixed_;
  std::vector<const double*> u_;
  std::vector<std::vector<double>> scal_;  // per kernel
  std::vector<std::size_t> len_, off_,
      cnt_;  // per kernel: its buffer's rows; this block's first row and count
  std::vector<detail::Scratch> scratch_, vals_;
  std::vector<double> t_fixed_, t_var_;
  std::size_t neg0_ = 0, pos0_ = 0, negoff_ = 0, begin_ = 0, n_ = 0;
};

void ProjectedEvaluator::accumulate_blocks(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                                           std::size_t b0, std::size_t b1, Eigen::MatrixXd& stats,
                                           std::size_t thread) const {
  Pass pass(*this, pop, stats, fixed_sums_[thread]);
  for (std::size_t blk = b0; blk < b1; ++blk) pass.block(blk);
  pass.finish();
}

void ProjectedEvaluator::statistics(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                                    Eigen::MatrixXd& stats) const {
  const auto n_cand = pop.cols();
  if (n_cand == 0) {
    stats.resize(static_cast<Eigen::Index>(stats_size()), 0);
    return;
  }
  const auto S = static_cast<Eigen::Index>(stats_size());
  const std::size_t block = ev_->options().block_rows;
  const std::size_t n_blocks = (ev_->rows() + block - 1) / block;
  const std::size_t threads = detail::threads_for(ev_->options().threads, n_blocks);
  std::vector<Eigen::MatrixXd> partial(threads, Eigen::MatrixXd::Zero(S, n_cand));
  if (fixed_sums_.size() != threads) fixed_sums_.assign(threads, Eigen::VectorXd());
  auto work = [&](std::size_t t) {
    accumulate_blocks(pop, n_blocks * t / threads, n_blocks * (t + 1) / threads, partial[t], t);
  };
  detail::run_threads(threads, work);
  // In thread order: the same thread count gives bit-identical statistics.
  stats = partial[0];
  for (std::size_t t = 1; t < threads; ++t) stats += partial[t];
}

}  // namespace perfit::model
