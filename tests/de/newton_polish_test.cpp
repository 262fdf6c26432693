#include "perfit/de/newton_polish.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace perfit::de {

namespace {

// Applies a cost of one point to every column of the batch, counting the points.
BatchObjective batch(double (*cost)(const Eigen::VectorXd&), std::size_t* points) {
  return [cost, points](const Eigen::MatrixXd& pop, Eigen::VectorXd& out) {
    out.resize(pop.cols());
    for (Eigen::Index j = 0; j < pop.cols(); ++j) out(j) = cost(pop.col(j));
    *points += static_cast<std::size_t>(pop.cols());
  };
}

// 1 + (x - 0.3)^2 + 4 (x - 0.3)^4: smooth, not quadratic, minimum 1 at x = 0.3.
double quartic(const Eigen::VectorXd& u) {
  const double x = u(0) - 0.3;
  return 1.0 + x * x + 4.0 * x * x * x * x;
}

// Rosenbrock's valley scaled into the cube: minimum 0 at (0.5, 0.25).
double valley(const Eigen::VectorXd& u) {
  const double a = 10.0 * (u(1) - u(0) * u(0)), b = 0.5 - u(0);
  return a * a + b * b;
}

}  // namespace

TEST(NewtonPolish, ConvergesInOneDimensionInAFewBatches) {
  std::size_t points = 0;
  const Eigen::VectorXd u0 = Eigen::VectorXd::Constant(1, 0.45);
  const NewtonResult r = newton_polish(batch(quartic, &points), u0, quartic(u0));
  EXPECT_NEAR(r.u(0), 0.3, 1e-7);
  EXPECT_NEAR(r.cost, 1.0, 1e-14);
  EXPECT_EQ(r.evaluations, points);
  EXPECT_LE(r.iterations, 10);
}

TEST(NewtonPolish, FollowsACurvedValleyInTwoDimensions) {
  std::size_t points = 0;
  const Eigen::Vector2d u0(0.4, 0.2);
  const NewtonResult r = newton_polish(batch(valley, &points), u0, valley(u0));
  EXPECT_NEAR(r.u(0), 0.5, 1e-6);
  EXPECT_NEAR(r.u(1), 0.25, 1e-6);
  EXPECT_LT(r.cost, 1e-12);
}

TEST(NewtonPolish, StopsAtTheBoundThatHoldsTheOptimumBack) {
  // The unconstrained minimum (1.4, -0.2) lies outside: the answer is the corner (1, 0).
  std::size_t points = 0;
  const auto outside = [](const Eigen::VectorXd& u) {
    return (u(0) - 1.4) * (u(0) - 1.4) + (u(1) + 0.2) * (u(1) + 0.2);
  };
  const Eigen::Vector2d u0(0.5, 0.5);
  const NewtonResult r = newton_polish(batch(outside, &points), u0, outside(u0));
  EXPECT_DOUBLE_EQ(r.u(0), 1.0);
  EXPECT_DOUBLE_EQ(r.u(1), 0.0);
  EXPECT_NEAR(r.cost, 0.16 + 0.04, 1e-12);
}

TEST(NewtonPolish, NeverTakesAnInfeasiblePointOrAWorseCost) {
  // Infeasible (inf) beyond 0.6; the minimum of the feasible part is at 0.6 from below.
  std::size_t points = 0;
  const auto walled = [](const Eigen::VectorXd& u) {
    return u(0) > 0.6 ? std::numeric_limits<double>::infinity() : (u(0) - 0.9) * (u(0) - 0.9);
  };
  const Eigen::VectorXd u0 = Eigen::VectorXd::Constant(1, 0.2);
  const NewtonResult r = newton_polish(batch(walled, &points), u0, walled(u0));
  EXPECT_LE(r.u(0), 0.6);
  EXPECT_LT(r.cost, walled(u0));
  EXPECT_TRUE(std::isfinite(r.cost));
}

TEST(NewtonPolish, ANonFiniteStartIsReturnedUntouched) {
  std::size_t points = 0;
  const Eigen::VectorXd u0 = Eigen::VectorXd::Constant(1, 0.5);
  const NewtonResult r =
      newton_polish(batch(quartic, &points), u0, std::numeric_limits<double>::infinity());
  EXPECT_EQ(points, 0u);
  EXPECT_EQ(r.u(0), 0.5);
  EXPECT_EQ(r.iterations, 0);
}

}  // namespace perfit::de
