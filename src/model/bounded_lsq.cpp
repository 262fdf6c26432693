#include "perfit/model/bounded_lsq.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace perfit::model {

Eigen::VectorXd BlockQP::times(const Eigen::VectorXd& x) const {
  const Eigen::Index nh = hub.rows(), h0 = x.size() - nh;
  Eigen::VectorXd y(x.size());
  const auto xh = x.tail(nh);
  Eigen::VectorXd yh = hub * xh;
  Eigen::Index s = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Eigen::Index k = blocks[b].rows();
    y.segment(s, k).noalias() = blocks[b] * x.segment(s, k);
    if (nh > 0) {
      y.segment(s, k).noalias() += links[b] * xh;
      yh.noalias() += links[b].transpose() * x.segment(s, k);
    }
    s += k;
  }
  y.segment(h0, nh) = yh;
  return y;
}

double BlockQP::diagonal(Eigen::Index i) const {
  for (const auto& a : blocks) {
    if (i < a.rows()) return a(i, i);
    i -= a.rows();
  }
  return hub(i, i);
}

namespace {

enum class At : signed char { lower = -1, free = 0, upper = 1, zero_column = 2 };

// A ridge far below the unit diagonal: collinear bases get the smaller solution instead of a
// breakdown; the cost changes by ~1e-13 of |y|^2.
constexpr double kRidge = 1e-13;
// Eliminating a block first (the Schur complement) is safe only when its pivots are not tiny;
// a group whose rows leave a direction undetermined is solved densely instead, with pivoting.
constexpr double kBlockPivotFloor = 1e-9;

class Bvls {
 public:
  explicit Bvls(BlockQP q)
      : s_(std::move(q)),
        lo_(s_.lo),
        hi_(s_.hi),
        n_(s_.size()),
        owner_(static_cast<std::size_t>(n_), -1),
        local_(owner_) {
    Eigen::Index k = 0;
    for (std::size_t b = 0; b < s_.blocks.size(); ++b) {
      for (Eigen::Index i = 0; i < s_.blocks[b].rows(); ++i, ++k) {
        owner_[static_cast<std::size_t>(k)] = static_cast<int>(b);
        local_[static_cast<std::size_t>(k)] = static_cast<int>(i);
      }
    }
    for (const Eigen::Index h0 = k; k < n_; ++k)
      local_[static_cast<std::size_t>(k)] = static_cast<int>(k - h0);
    dirty_.assign(s_.blocks.size(), 1);
  }

  Eigen::VectorXd solve(std::vector<signed char>* bounds) {
    Eigen::VectorXd c(n_);
    at_.assign(static_cast<std::size_t>(n_), At::free);
    d_ = Eigen::VectorXd::Ones(n_);
    // A zero column does not interact (H is semidefinite): only the linear term decides.
    for (Eigen::Index k = 0; k < n_; ++k) {
      if (s_.diagonal(k) > 0.0) {
        d_(k) = 1.0 / std::sqrt(s_.diagonal(k));
      } else {
        c(k) = s_.v(k) > 0.0   ? s_.hi(k)
               : s_.v(k) < 0.0 ? s_.lo(k)
                               : std::clamp(0.0, s_.lo(k), s_.hi(k));
        at_[static_cast<std::size_t>(k)] = At::zero_column;
      }
    }
    scale();
    x_.resize(n_);
    for (Eigen::Index k = 0; k < n_; ++k) {
      const auto i = static_cast<std::size_t>(k);
      x_(k) = at_[i] == At::zero_column ? 0.0 : std::clamp(0.0, s_.lo(k), s_.hi(k));
      const signed char b =
          bounds && bounds->size() == static_cast<std::size_t>(n_) ? (*bounds)[i] : 0;
      if (at_[i] == At::free && b != 0) {
        at_[i] = b < 0 ? At::lower : At::upper;
        x_(k) = b < 0 ? s_.lo(k) : s_.hi(k);
      }
    }
    // Each pass either fixes a variable or frees one; BVLS needs a few times n in practice.
    for (Eigen::Index iter = 0; iter < 10 * n_ + 20; ++iter) {
      if (!free_solve()) break;
      if (!free_.empty() && step_to_bound()) continue;
      const Eigen::Index k = most_violating();
      if (k < 0) break;
      at_[static_cast<std::size_t>(k)] = At::free;
      touch(k);
    }
    for (Eigen::Index k = 0; k < n_; ++k) {
      if (at_[static_cast<std::size_t>(k)] != At::zero_column)
        c(k) = std::clamp(x_(k) * d_(k), lo(k), hi(k));
    }
    if (bounds) {
      bounds->assign(static_cast<std::size_t>(n_), 0);
      for (std::size_t k = 0; k < at_.size(); ++k) {
        if (at_[k] == At::lower || at_[k] == At::upper)
          (*bounds)[k] = static_cast<signed char>(at_[k]);
      }
    }
    return c;
  }

 private:
  double lo(Eigen::Index k) const { return lo_(k); }
  double hi(Eigen::Index k) const { return hi_(k); }

  // To a unit diagonal: H -> dHd, v -> dv, bounds -> bounds/d.
  void scale() {
    Eigen::Index s = 0;
    const Eigen::Index nh = s_.hub.rows();
    const auto dh = d_.tail(nh);
    for (std::size_t b = 0; b < s_.blocks.size(); ++b) {
      const Eigen::Index k = s_.blocks[b].rows();
      const auto db = d_.segment(s, k);
      s_.blocks[b] = db.asDiagonal() * s_.blocks[b] * db.asDiagonal();
      if (nh > 0) s_.links[b] = db.asDiagonal() * s_.links[b] * dh.asDiagonal();
      s += k;
    }
    s_.hub = dh.asDiagonal() * s_.hub * dh.asDiagonal();
    s_.v = s_.v.cwiseProduct(d_);
    s_.lo = s_.lo.cwiseQuotient(d_);
    s_.hi = s_.hi.cwiseQuotient(d_);
  }

  double entry(Eigen::Index i, Eigen::Index j) const {
    const int bi = owner_[static_cast<std::size_t>(i)], bj = owner_[static_cast<std::size_t>(j)];
    const int li = local_[static_cast<std::size_t>(i)], lj = local_[static_cast<std::size_t>(j)];
    if (bi >= 0 && bj >= 0) return bi == bj ? s_.blocks[static_cast<std::size_t>(bi)](li, lj) : 0.0;
    if (bi >= 0) return s_.links[static_cast<std::size_t>(bi)](li, lj);
    if (bj >= 0) return s_.links[static_cast<std::size_t>(bj)](lj, li);
    return s_.hub(li, lj);
  }

  void touch(Eigen::Index k) {
    const int b = owner_[static_cast<std::size_t>(k)];
    if (b < 0) {
      hub_dirty_ = true;
    } else {
      dirty_[static_cast<std::size_t>(b)] = 1;
    }
  }

  // z on the free variables with the others at their values; false when the solve breaks
  // down (non-finite), which leaves x as it is.
  bool free_solve() {
    free_.clear();
    Eigen::VectorXd fixed = x_;
    for (Eigen::Index k = 0; k < n_; ++k) {
      if (at_[static_cast<std::size_t>(k)] == At::free) {
        free_.push_back(k);
        fixed(k) = 0.0;
      }
    }
    if (free_.empty()) return true;
    const Eigen::VectorXd r = s_.v - s_.times(fixed);
    z_ = Eigen::VectorXd::Zero(n_);
    if (!block_solve(r)) dense_solve(r);
    return z_.allFinite();
  }

  // Each block's free variables eliminated into the hub's (a Schur complement): linear in the
  // number of blocks. False when a block's pivots are too small to eliminate it first.
  bool block_solve(const Eigen::VectorXd& r) {
    std::vector<Eigen::Index> hub_free;
    mine_.resize(s_.blocks.size());
    for (auto& m : mine_) m.clear();
    for (const Eigen::Index k : free_) {
      const int b = owner_[static_cast<std::size_t>(k)];
      (b < 0 ? hub_free : mine_[static_cast<std::size_t>(b)])
          .push_back(local_[static_cast<std::size_t>(k)]);
    }
    const auto mh = static_cast<Eigen::Index>(hub_free.size());
    Eigen::MatrixXd S(mh, mh);
    Eigen::VectorXd rh(mh);
    const Eigen::Index h0 = n_ - s_.hub.rows();
    for (Eigen::Index a = 0; a < mh; ++a) {
      rh(a) = r(h0 + hub_free[a]);
      for (Eigen::Index c = 0; c < mh; ++c) S(a, c) = s_.hub(hub_free[a], hub_free[c]);
      S(a, a) += kRidge;
    }
    solved_.resize(s_.blocks.size());
    factor_.resize(s_.blocks.size());
    schur_.resize(s_.blocks.size());
    Eigen::Index start = 0;
    for (std::size_t b = 0; b < mine_.size(); start += s_.blocks[b].rows(), ++b) {
      const auto& mine = mine_[b];
      const auto mb = static_cast<Eigen::Index>(mine.size());
      if (mb == 0) continue;
      if (!dirty_[b] && !hub_dirty_) {  // nothing of this block changed since its last solve
        S -= schur_[b].leftCols(mh);
        rh -= schur_[b].col(mh);
        continue;
      }
      A_.resize(mb, mb);
      rhs_.resize(mb, mh + 1);
      for (Eigen::Index a = 0; a < mb; ++a) {
        for (Eigen::Index c = 0; c < mb; ++c) A_(a, c) = s_.blocks[b](mine[a], mine[c]);
        A_(a, a) += kRidge;
        for (Eigen::Index c = 0; c < mh; ++c) rhs_(a, c) = s_.links[b](mine[a], hub_free[c]);
        rhs_(a, mh) = r(start + mine[a]);
      }
      auto& f = factor_[b];
      f.compute(A_);
      // Without hub variables the blocks do not meet: each is solved as the dense form would.
      if (mh > 0 && (f.info() != Eigen::Success || !(f.vectorD().minCoeff() > kBlockPivotFloor))) {
        std::fill(dirty_.begin(), dirty_.end(), 1);  // this block was not solved
        return false;
      }
      solved_[b] = f.solve(rhs_);
      schur_[b].noalias() = rhs_.leftCols(mh).transpose() * solved_[b];
      S -= schur_[b].leftCols(mh);
      rh -= schur_[b].col(mh);
    }
    std::fill(dirty_.begin(), dirty_.end(), 0);
    hub_dirty_ = false;
    const Eigen::VectorXd zh = mh > 0 ? Eigen::VectorXd(S.ldlt().solve(rh)) : Eigen::VectorXd();
    for (Eigen::Index a = 0; a < mh; ++a) z_(h0 + hub_free[a]) = zh(a);
    start = 0;
    for (std::size_t b = 0; b < mine_.size(); start += s_.blocks[b].rows(), ++b) {
      if (mine_[b].empty()) continue;
      Eigen::VectorXd zb = solved_[b].col(mh);
      if (mh > 0) zb.noalias() -= solved_[b].leftCols(mh) * zh;
      for (std::size_t a = 0; a < mine_[b].size(); ++a)
        z_(start + mine_[b][a]) = zb(static_cast<Eigen::Index>(a));
    }
    return true;
  }

  void dense_solve(const Eigen::VectorXd& r) {
    const auto m = static_cast<Eigen::Index>(free_.size());
    Eigen::MatrixXd hf(m, m);
    Eigen::VectorXd rhs(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      rhs(a) = r(free_[a]);
      for (Eigen::Index c = 0; c < m; ++c) hf(a, c) = entry(free_[a], free_[c]);
      hf(a, a) += kRidge;
    }
    const Eigen::VectorXd z = hf.ldlt().solve(rhs);
    for (Eigen::Index a = 0; a < m; ++a) z_(free_[a]) = z(a);
  }

  // Moves x towards z on the free variables until the first bound; fixes what it reaches on
  // its way out of the box. A variable that starts on a bound (a log-scaled constant's lower
  // bound is where a cold start puts it) and is heading inside stays free: fixing it too, as
  // when the step is 0, pinned every such variable and then freed them one solve at a time.
  // Returns false when z is feasible (x = z).
  bool step_to_bound() {
    double alpha = 1.0;
    Eigen::Index blocking = -1;
    for (const Eigen::Index k : free_) {
      double t = 1.0;
      if (z_(k) < s_.lo(k)) t = (s_.lo(k) - x_(k)) / (z_(k) - x_(k));
      if (z_(k) > s_.hi(k)) t = (s_.hi(k) - x_(k)) / (z_(k) - x_(k));
      if (t < alpha) {
        alpha = t;
        blocking = k;
      }
    }
    for (const Eigen::Index k : free_) {
      x_(k) = blocking < 0 ? z_(k) : x_(k) + alpha * (z_(k) - x_(k));
      auto& state = at_[static_cast<std::size_t>(k)];
      if (z_(k) < s_.lo(k) && (x_(k) <= s_.lo(k) || k == blocking)) {
        x_(k) = s_.lo(k);
        state = At::lower;
        touch(k);
      } else if (z_(k) > s_.hi(k) && (x_(k) >= s_.hi(k) || k == blocking)) {
        x_(k) = s_.hi(k);
        state = At::upper;
        touch(k);
      }
    }
    return blocking >= 0;
  }

  // The bound variable whose gradient most points into the box, or -1 (optimal).
  Eigen::Index most_violating() const {
    const Eigen::VectorXd g = s_.times(x_) - s_.v;  // half the gradient of q
    const double tol = 1e-11 * std::max(1.0, s_.v.cwiseAbs().maxCoeff());
    Eigen::Index best = -1;
    double worst = tol;
    for (Eigen::Index k = 0; k < n_; ++k) {
      const At a = at_[static_cast<std::size_t>(k)];
      const double into = a == At::lower ? -g(k) : a == At::upper ? g(k) : 0.0;
      if (into > worst && s_.lo(k) < s_.hi(k)) {
        worst = into;
        best = k;
      }
    }
    return best;
  }

  BlockQP s_;                // scaled to a unit diagonal
  Eigen::VectorXd lo_, hi_;  // the bounds as given
  Eigen::Index n_;
  std::vector<int> owner_, local_;  // per variable: its block (-1: the hub) and place in it
  std::vector<At> at_;
  std::vector<Eigen::Index> free_;
  Eigen::VectorXd d_, x_, z_;
  // block_solve's work, kept across its calls: per block its free variables (local indices),
  // factorisation and solved columns.
  std::vector<std::vector<Eigen::Index>> mine_;
  std::vector<Eigen::LDLT<Eigen::MatrixXd>> factor_;
  std::vector<Eigen::MatrixXd> solved_;
  // A block's solve depends on its free set and its bound variables' values, and on the hub's
  // free set and bound values: only a block whose own variables changed (or all, when the
  // hub's did) is solved again; the others' terms of the Schur complement are kept. With
  // many groups, one variable freed or fixed then costs one block's solve, not every block's.
  std::vector<Eigen::MatrixXd> schur_;  // C_b' [A_b^-1 C_b, A_b^-1 r_b]
  std::vector<char> dirty_;
  bool hub_dirty_ = true;
  Eigen::MatrixXd A_, rhs_;
};

}  // namespace

Eigen::VectorXd bounded_least_squares(BlockQP problem, std::vector<signed char>* bounds) {
  return Bvls(std::move(problem)).solve(bounds);
}

Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& H, const Eigen::VectorXd& v,
                                      const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                      std::vector<signed char>* bounds) {
  return bounded_least_squares(BlockQP{{}, {}, H, v, lo, hi}, bounds);
}

}  // namespace perfit::model
