#include "perfit/de/levenberg_marquardt.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/split_columns.hpp"

namespace perfit::de {

// Residuals 10(y - x^2) and 0.5 - x: a curved valley (Rosenbrock's shape) whose minimum,
// (0.5, 0.25), lies inside the unit cube.
void valley(const Eigen::VectorXd& u, Eigen::VectorXd& r) {
  r.resize(2);
  r << 10.0 * (u(1) - u(0) * u(0)), 0.5 - u(0);
}

TEST(LevenbergMarquardt, FindsAnInteriorMinimumOfACurvedValley) {
  const LmResult res = levenberg_marquardt(valley, Eigen::Vector2d(0.1, 0.9));
  EXPECT_NEAR(res.u(0), 0.5, 1e-8);
  EXPECT_NEAR(res.u(1), 0.25, 1e-8);
  EXPECT_LT(res.cost, 1e-16);
  EXPECT_GT(res.iterations, 0);
  EXPECT_LE(res.iterations, LmOptions{}.max_iterations);
  // One residual evaluation per step and per Jacobian column at least.
  EXPECT_GE(res.residual_evaluations, res.iterations * 3);
}

TEST(LevenbergMarquardt, StepsAreProjectedOntoTheCube) {
  // The unconstrained optimum (1.5, -0.5) lies outside: the answer is the nearest corner.
  const ResidualFn f = [](const Eigen::VectorXd& u, Eigen::VectorXd& r) {
    r.resize(2);
    r << u(0) - 1.5, u(1) + 0.5;
  };
  const LmResult res = levenberg_marquardt(f, Eigen::Vector2d(0.5, 0.5));
  EXPECT_DOUBLE_EQ(res.u(0), 1.0);
  EXPECT_DOUBLE_EQ(res.u(1), 0.0);
  EXPECT_NEAR(res.cost, 0.25 + 0.25, 1e-12);
}

TEST(LevenbergMarquardt, NeverStepsIntoInfeasiblePoints) {
  // The optimum at x = 0.8 sits behind a wall of non-finite residuals from x = 0.6 on.
  const ResidualFn f = [](const Eigen::VectorXd& u, Eigen::VectorXd& r) {
    r.resize(1);
    r(0) = u(0) >= 0.6 ? std::numeric_limits<double>::quiet_NaN() : u(0) - 0.8;
  };
  const LmResult res = levenberg_marquardt(f, Eigen::VectorXd::Constant(1, 0.2));
  EXPECT_LT(res.u(0), 0.6);
  EXPECT_GT(res.u(0), 0.2);  // it still moved toward the optimum
  EXPECT_TRUE(std::isfinite(res.cost));
}

TEST(LevenbergMarquardt, ASumOverIdenticalShardsReachesTheSameAnswer) {
  // Ranks sharing rows reduce J'J, J'r and |r|^2 by summing; two shards holding the same rows
  // double every sum, which scales the normal equations but must not move the answer.
  const LmResult one = levenberg_marquardt(valley, Eigen::Vector2d(0.1, 0.9));
  const SumReducer twice = [](double* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) data[i] *= 2.0;
  };
  const LmResult two = levenberg_marquardt(valley, Eigen::Vector2d(0.1, 0.9), {}, twice);
  EXPECT_NEAR(two.u(0), one.u(0), 1e-12);
  EXPECT_NEAR(two.u(1), one.u(1), 1e-12);
  EXPECT_NEAR(two.cost, 2.0 * one.cost, 1e-15);
}

// Residuals of four coupled params: enough columns for a split to share.
void coupled(const Eigen::VectorXd& u, Eigen::VectorXd& r) {
  r.resize(5);
  r << 10.0 * (u(1) - u(0) * u(0)), 0.5 - u(0), 3.0 * (u(2) - u(1) * u(3)), u(3) - 0.7,
      u(0) * u(2) - 0.1;
}

TEST(LevenbergMarquardt, ProcessesSharingTheColumnsTakeTheSerialSteps) {
  const Eigen::Vector4d start(0.1, 0.9, 0.3, 0.2);
  const LmResult serial = levenberg_marquardt(coupled, start);
  for (const int parts : {2, 3}) {
    const std::vector<LmResult> split = testing_support::split_columns<LmResult>(
        parts,
        [&](const ColumnSplit& c) { return levenberg_marquardt(coupled, start, {}, {}, c); });
    for (const LmResult& one : split) {  // bit for bit, on every process
      EXPECT_EQ(one.u, serial.u) << parts;
      EXPECT_EQ(one.cost, serial.cost) << parts;
      EXPECT_EQ(one.iterations, serial.iterations) << parts;
      // Each evaluated its own columns only (plus the steps, which every process takes).
      EXPECT_LT(one.residual_evaluations, serial.residual_evaluations) << parts;
    }
  }
}

TEST(LevenbergMarquardt, StopsAtTheIterationLimit) {
  LmOptions o;
  o.max_iterations = 2;
  const LmResult res = levenberg_marquardt(valley, Eigen::Vector2d(0.1, 0.9), o);
  EXPECT_LE(res.iterations, 2);
  EXPECT_GT(res.cost, 1e-10);  // two steps do not reach the bottom of the valley from there
}

}  // namespace perfit::de
