#include "perfit/model/bounded_lsq.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <numeric>

#include "perfit/core/rng.hpp"

namespace perfit::model {

namespace {

double q_of(const Eigen::MatrixXd& H, const Eigen::VectorXd& v, const Eigen::VectorXd& c) {
  return c.dot(H * c) - 2.0 * v.dot(c);
}

// The exact optimum by enumeration: every variable free, at lo or at hi (3^k systems).
Eigen::VectorXd brute_force(const Eigen::MatrixXd& H, const Eigen::VectorXd& v,
                            const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  const int k = static_cast<int>(v.size());
  int states = 1;
  for (int i = 0; i < k; ++i) states *= 3;
  Eigen::VectorXd best = lo;
  double best_q = std::numeric_limits<double>::infinity();
  for (int code = 0; code < states; ++code) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(k);
    std::vector<int> free;
    int x = code;
    for (int i = 0; i < k; ++i, x /= 3) {
      if (x % 3 == 0) free.push_back(i);
      c(i) = x % 3 == 1 ? lo(i) : hi(i);
    }
    const int m = static_cast<int>(free.size());
    if (m > 0) {
      Eigen::MatrixXd hf(m, m);
      Eigen::VectorXd r(m);
      for (int a = 0; a < m; ++a) {
        r(a) = v(free[a]);
        for (int j = 0; j < k; ++j) {
          if (std::find(free.begin(), free.end(), j) == free.end()) r(a) -= H(free[a], j) * c(j);
        }
        for (int b = 0; b < m; ++b) hf(a, b) = H(free[a], free[b]);
      }
      const Eigen::VectorXd z = hf.ldlt().solve(r);
      for (int a = 0; a < m; ++a) c(free[a]) = z(a);
    }
    if (((c - lo).array() < -1e-12).any() || ((hi - c).array() < -1e-12).any()) continue;
    if (q_of(H, v, c) < best_q) {
      best_q = q_of(H, v, c);
      best = c;
    }
  }
  return best;
}

}  // namespace

TEST(BoundedLsq, MatchesEnumerationOfAllActiveSetsOnRandomProblems) {
  Rng rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 1 + trial % 5, rows = 3 * k + 2;
    Eigen::MatrixXd A(rows, k);
    Eigen::VectorXd t(rows);
    for (int i = 0; i < rows; ++i) {
      t(i) = rng.normal();
      for (int j = 0; j < k; ++j) A(i, j) = rng.normal() * std::pow(10.0, j - 2);  // mixed scales
    }
    const Eigen::MatrixXd H = A.transpose() * A;
    const Eigen::VectorXd v = A.transpose() * t;
    Eigen::VectorXd lo(k), hi(k);
    for (int j = 0; j < k; ++j) {
      const double s = std::pow(10.0, 2 - j);
      lo(j) = rng.uniform(-1, 0.5) * s;
      hi(j) = lo(j) + rng.uniform(0.01, 2) * s;
    }
    const Eigen::VectorXd c = bounded_least_squares(H, v, lo, hi);
    const Eigen::VectorXd ref = brute_force(H, v, lo, hi);
    ASSERT_TRUE(((c - lo).array() >= 0).all() && ((hi - c).array() >= 0).all())
        << "trial " << trial;
    const double qc = q_of(H, v, c), qr = q_of(H, v, ref);
    EXPECT_LE(qc, qr + 1e-9 * (std::fabs(qr) + t.squaredNorm())) << "trial " << trial;
  }
}

TEST(BoundedLsq, InteriorOptimumIsTheUnconstrainedSolution) {
  Eigen::MatrixXd H(2, 2);
  H << 2, 1, 1, 3;
  const Eigen::VectorXd truth = Eigen::Vector2d(0.25, -0.5);
  const Eigen::VectorXd c =
      bounded_least_squares(H, H * truth, Eigen::Vector2d(-1, -1), Eigen::Vector2d(1, 1));
  EXPECT_NEAR(c(0), 0.25, 1e-12);
  EXPECT_NEAR(c(1), -0.5, 1e-12);
}

TEST(BoundedLsq, ZeroAndCollinearColumnsGiveAFeasibleMinimiser) {
  // Column 1 is zero on every row; columns 0 and 2 are equal.
  Eigen::MatrixXd A(4, 3);
  A << 1, 0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4;
  const Eigen::Vector4d t(2, 4, 6, 8);
  const Eigen::MatrixXd H = A.transpose() * A;
  const Eigen::VectorXd c = bounded_least_squares(H, A.transpose() * t, Eigen::Vector3d(0, -5, 0),
                                                  Eigen::Vector3d(10, 5, 10));
  EXPECT_NEAR(c(0) + c(2), 2.0, 1e-9);  // any split of the collinear pair fits exactly
  EXPECT_EQ(c(1), 0.0);                 // no influence: the bounded point nearest 0
  EXPECT_TRUE(c.allFinite());
}

namespace {

// A problem of `groups` blocks of rows (each its own constants) and `shared` constants that
// meet every row, as a joint fit's; degenerate: one block's two columns are equal.
struct GroupedRows {
  Eigen::MatrixXd A;
  Eigen::VectorXd t;
  std::vector<Eigen::Index> sizes;
};

GroupedRows grouped_rows(Rng& rng, int groups, int shared, bool degenerate) {
  GroupedRows g;
  int k = 0;
  for (int b = 0; b < groups; ++b) g.sizes.push_back(1 + (b % 3));
  for (const auto s : g.sizes) k += static_cast<int>(s);
  const int rows_per = 6, n = k + shared;
  g.A = Eigen::MatrixXd::Zero(rows_per * groups, n);
  g.t.resize(rows_per * groups);
  int col = 0;
  for (int b = 0; b < groups; ++b) {
    for (int r = 0; r < rows_per; ++r) {
      const int row = b * rows_per + r;
      g.t(row) = rng.normal();
      for (int j = 0; j < g.sizes[static_cast<std::size_t>(b)]; ++j)
        g.A(row, col + j) = rng.normal() * std::pow(10.0, j - 1);
      for (int j = 0; j < shared; ++j) g.A(row, k + j) = rng.normal();
      if (degenerate && b == 2) g.A(row, col + 1) = g.A(row, col);
    }
    col += static_cast<int>(g.sizes[static_cast<std::size_t>(b)]);
  }
  return g;
}

}  // namespace

// The block form (each group eliminated into the shared constants) finds the dense form's
// minimum, also when a group's own rows leave a direction undetermined.
TEST(BoundedLsq, BlockFormMatchesTheDenseForm) {
  Rng rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const GroupedRows g = grouped_rows(rng, 2 + trial % 6, trial % 3, trial % 5 == 4);
    const Eigen::MatrixXd H = g.A.transpose() * g.A;
    const Eigen::VectorXd v = g.A.transpose() * g.t;
    const auto n = H.rows(),
               shared = n - std::accumulate(g.sizes.begin(), g.sizes.end(), Eigen::Index{0});
    Eigen::VectorXd lo(n), hi(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      lo(j) = rng.uniform(-1, 0.2);
      hi(j) = lo(j) + rng.uniform(0.05, 2);
    }
    BlockQP q{{}, {}, H.bottomRightCorner(shared, shared), v, lo, hi};
    Eigen::Index s = 0;
    for (const auto k : g.sizes) {
      q.blocks.push_back(H.block(s, s, k, k));
      q.links.push_back(H.block(s, n - shared, k, shared));
      s += k;
    }
    ASSERT_TRUE(q.times(v).isApprox(H * v)) << "trial " << trial;
    const Eigen::VectorXd block = bounded_least_squares(q),
                          dense = bounded_least_squares(H, v, lo, hi);
    ASSERT_TRUE(((block - lo).array() >= 0).all() && ((hi - block).array() >= 0).all())
        << "trial " << trial;
    const double qb = q_of(H, v, block), qd = q_of(H, v, dense);
    EXPECT_NEAR(qb, qd, 1e-9 * (std::fabs(qd) + g.t.squaredNorm())) << "trial " << trial;
  }
}

}  // namespace perfit::model
