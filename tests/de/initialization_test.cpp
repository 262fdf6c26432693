#include "perfit/de/initialization.hpp"

#include <gtest/gtest.h>

#include <set>

namespace perfit::de {

TEST(Sobol, MatchesScipyUnscrambledPoints) {
  // scipy.stats.qmc.Sobol(8, scramble=False).random(8)[1:5]
  const double want[4][8] = {{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5},
                             {0.75, 0.25, 0.25, 0.25, 0.75, 0.75, 0.25, 0.75},
                             {0.25, 0.75, 0.75, 0.75, 0.25, 0.25, 0.75, 0.25},
                             {0.375, 0.375, 0.625, 0.875, 0.375, 0.125, 0.375, 0.875}};
  const Eigen::MatrixXd p = sobol_points(8, 4);
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 8; ++i) EXPECT_EQ(p(i, j), want[j][i]) << "point " << j << " dim " << i;
  }
}

TEST(Sobol, EveryDyadicIntervalGetsItsShare) {
  // The first 2^k points put exactly one point in each interval [m/2^k, (m+1)/2^k) of every
  // coordinate (a (0,k,1)-net in each dimension): checked for all 32 dimensions.
  const Eigen::MatrixXd p = sobol_points(kMaxSobolDim, 64, 0);
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    std::set<int> cells;
    for (Eigen::Index j = 0; j < 64; ++j) cells.insert(static_cast<int>(p(i, j) * 64));
    EXPECT_EQ(cells.size(), 64u) << "dimension " << i;
  }
}

TEST(Initialization, LatinHypercubeHasOnePointPerStratum) {
  Rng rng(4);
  const Eigen::MatrixXd p = initial_population(5, 40, Init::lhs, {}, rng);
  for (Eigen::Index i = 0; i < 5; ++i) {
    std::set<int> cells;
    for (Eigen::Index j = 0; j < 40; ++j) cells.insert(static_cast<int>(p(i, j) * 40));
    EXPECT_EQ(cells.size(), 40u);
  }
}

TEST(Initialization, SeedsReplaceTheFirstIndividualsAndEverythingIsInTheCube) {
  Rng rng(1);
  Eigen::VectorXd x0(3);
  x0 << 0.1, 0.2, 1.7;  // clamped into the cube
  for (Init init : {Init::uniform, Init::lhs, Init::sobol}) {
    const Eigen::MatrixXd p = initial_population(3, 20, init, {x0}, rng);
    EXPECT_EQ(p(2, 0), 1.0);
    EXPECT_EQ(p(0, 0), 0.1);
    EXPECT_GE(p.minCoeff(), 0.0);
    EXPECT_LT(p.maxCoeff(), 1.0 + 1e-15);
  }
}

}  // namespace perfit::de
