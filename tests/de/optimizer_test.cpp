#include "perfit/de/optimizer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "perfit/core/error.hpp"

namespace perfit::de {

namespace {

double sphere(const Eigen::VectorXd& x) { return x.squaredNorm(); }
double rosenbrock(const Eigen::VectorXd& x) {
  double s = 0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    s += 100 * std::pow(x(i + 1) - x(i) * x(i), 2) + std::pow(1 - x(i), 2);
  }
  return s;
}
double rastrigin(const Eigen::VectorXd& x) {
  return 10.0 * static_cast<double>(x.size()) +
         (x.array().square() - 10.0 * (2 * M_PI * x.array()).cos()).sum();
}
double ackley(const Eigen::VectorXd& x) {
  const double n = static_cast<double>(x.size());
  return -20 * std::exp(-0.2 * std::sqrt(x.squaredNorm() / n)) -
         std::exp((2 * M_PI * x.array()).cos().sum() / n) + 20 + M_E;
}

struct Function {
  const char* name;
  double lo, hi;
  double (*f)(const Eigen::VectorXd&);
};
constexpr Function kSphere{"sphere", -5, 5, sphere};
constexpr Function kRosenbrock{"rosenbrock", -5, 10, rosenbrock};
constexpr Function kRastrigin{"rastrigin", -5.12, 5.12, rastrigin};
constexpr Function kAckley{"ackley", -32.768, 32.768, ackley};

BatchObjective objective(const Function& fn) {
  return [fn](const Eigen::MatrixXd& pop, Eigen::VectorXd& costs) {
    for (Eigen::Index j = 0; j < pop.cols(); ++j) {
      const Eigen::VectorXd x = (fn.lo + pop.col(j).array() * (fn.hi - fn.lo)).matrix();
      costs(j) = fn.f(x);
    }
  };
}

struct Case {
  Function fn;
  const char* strategy;
  double CR;
  double F_max;        // 0: no dither
  std::size_t budget;  // evaluations within which every seed must reach 1e-8
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.fn.name << "/" << c.strategy;
}

}  // namespace

// Each strategy reaches the optimum (cost <= 1e-8) of the 10-D benchmark functions within the
// stated evaluation budget, for seeds 1..5. The settings are the textbook ones: CR 0.1 for the
// classic strategies on separable multimodal functions, dithered F for the greedy ones on
// Rosenbrock; the adaptive strategies need no tuning.
class Benchmarks : public ::testing::TestWithParam<Case> {};

TEST_P(Benchmarks, ReachTheOptimumWithinTheBudgetForFiveSeeds) {
  const Case& c = GetParam();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    DeOptions o;
    o.strategy = parse_strategy(c.strategy);
    o.seed = seed;
    o.CR = c.CR;
    o.F_max = c.F_max;  // 0: the textbook fixed F
    o.max_evaluations = 300000;
    o.max_generations = 100000;
    o.target_cost = 1e-8;
    o.tol = 0;
    DeOptimizer opt(10, o, objective(c.fn));
    const DeSummary s = opt.run();
    EXPECT_LE(s.best_cost, 1e-8) << "seed " << seed;
    EXPECT_LE(s.evaluations, c.budget) << "seed " << seed;
    EXPECT_EQ(s.reason, StopReason::target_cost) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(
    TenDimensional, Benchmarks,
    ::testing::Values(
        Case{kSphere, "rand1bin", 0.9, 0, 60000}, Case{kSphere, "best1bin", 0.9, 0, 20000},
        Case{kSphere, "current-to-best1bin", 0.9, 0, 20000},
        Case{kSphere, "rand2bin", 0.9, 0, 100000},
        Case{kSphere, "current-to-pbest1", 0.9, 0, 30000}, Case{kSphere, "shade", 0.9, 0, 60000},
        Case{kSphere, "lshade", 0.9, 0, 60000}, Case{kSphere, "jso", 0.9, 0, 60000},
        Case{kRosenbrock, "rand1bin", 0.9, 0, 200000},
        Case{kRosenbrock, "best1bin", 0.9, 1.0, 100000},
        Case{kRosenbrock, "current-to-best1bin", 0.9, 1.0, 100000},
        Case{kRosenbrock, "rand2bin", 0.9, 0, 250000},
        Case{kRosenbrock, "current-to-pbest1", 0.9, 0, 120000},
        Case{kRosenbrock, "shade", 0.9, 0, 150000}, Case{kRosenbrock, "lshade", 0.9, 0, 150000},
        Case{kRosenbrock, "jso", 0.9, 0, 150000}, Case{kRastrigin, "rand1bin", 0.1, 0, 100000},
        Case{kRastrigin, "best1bin", 0.1, 0, 60000},
        Case{kRastrigin, "current-to-best1bin", 0.1, 0, 100000},
        Case{kRastrigin, "rand2bin", 0.1, 0, 120000},
        Case{kRastrigin, "current-to-pbest1", 0.1, 0, 100000},
        Case{kRastrigin, "shade", 0.9, 0, 200000}, Case{kRastrigin, "lshade", 0.9, 0, 200000},
        Case{kRastrigin, "jso", 0.9, 0, 300000}, Case{kAckley, "rand1bin", 0.9, 0, 120000},
        Case{kAckley, "best1bin", 0.1, 0, 80000},
        Case{kAckley, "current-to-best1bin", 0.9, 0, 40000},
        Case{kAckley, "rand2bin", 0.9, 0, 200000},
        Case{kAckley, "current-to-pbest1", 0.9, 0, 50000}, Case{kAckley, "shade", 0.9, 0, 120000},
        Case{kAckley, "lshade", 0.9, 0, 120000}, Case{kAckley, "jso", 0.9, 0, 120000}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string n = std::string(i.param.fn.name) + "_" + i.param.strategy;
      for (auto& ch : n) {
        if (ch == '-') ch = '_';
      }
      return n;
    });

TEST(DeOptimizer, SameSeedGivesABitIdenticalRunAndAnotherSeedDoesNot) {
  for (const char* s : {"rand1bin", "lshade", "jso"}) {
    DeOptions o;
    o.strategy = parse_strategy(s);
    o.max_generations = 60;
    o.seed = 11;
    DeOptimizer a(6, o, objective(kRastrigin)), b(6, o, objective(kRastrigin));
    const DeSummary ra = a.run(), rb = b.run();
    EXPECT_EQ(ra.best, rb.best) << s;  // exact, not approximate
    EXPECT_EQ(ra.best_cost, rb.best_cost) << s;
    EXPECT_EQ(a.state().history, b.state().history) << s;
    o.seed = 12;
    DeOptimizer c(6, o, objective(kRastrigin));
    EXPECT_NE(c.run().best, ra.best) << s;
  }
}

TEST(DeOptimizer, ARestoredStateContinuesExactlyAsAnUninterruptedRun) {
  DeOptions o;
  o.strategy = Strategy::jso;
  o.max_generations = 80;
  o.seed = 3;
  DeOptimizer whole(5, o, objective(kAckley));
  const DeSummary full = whole.run();
  DeOptimizer first(5, o, objective(kAckley));
  first.initialize();
  for (int g = 0; g < 30; ++g) first.step();
  const DeState saved = first.state();  // a checkpoint
  DeOptimizer resumed(5, o, objective(kAckley));
  resumed.set_state(saved);
  const DeSummary r = resumed.run();
  EXPECT_EQ(r.best, full.best);
  EXPECT_EQ(r.evaluations, full.evaluations);
  EXPECT_EQ(resumed.state().history, whole.state().history);
}

TEST(DeOptimizer, LshadeShrinksThePopulationToTheFloor) {
  DeOptions o;
  o.strategy = Strategy::lshade;
  o.max_evaluations = 20000;
  o.tol = 0;
  Rng noise(9);  // a cost that never flattens, so only the budget stops the run
  DeOptimizer opt(4, o, [&](const Eigen::MatrixXd& p, Eigen::VectorXd& c) {
    for (Eigen::Index j = 0; j < p.cols(); ++j) c(j) = noise.uniform();
  });
  opt.initialize();
  while (opt.state().evaluations < 10000) opt.step();
  // Halfway through the budget, NP is halfway from 72 to 4 (one generation of slack).
  EXPECT_NEAR(static_cast<double>(opt.state().pop.cols()), 38.0, 2.0);
  EXPECT_EQ(opt.run().reason, StopReason::max_evaluations);
  EXPECT_EQ(opt.state().pop.cols(), 4);
  EXPECT_EQ(opt.state().np_init, 72u);  // 18 D
}

TEST(DeOptimizer, StopReasonsAreReported) {
  DeOptions o;
  o.max_generations = 5;
  o.tol = 0;
  DeOptimizer a(3, o, objective(kSphere));
  EXPECT_EQ(a.run().reason, StopReason::max_generations);
  o.max_generations = 100000;
  o.max_evaluations = 1000;
  DeOptimizer b(3, o, objective(kSphere));
  const DeSummary sb = b.run();
  EXPECT_EQ(sb.reason, StopReason::max_evaluations);
  EXPECT_GE(sb.evaluations, 1000u);
  o.max_evaluations = 0;
  o.tol = 1e-3;
  DeOptimizer c(3, o, objective(kSphere));
  EXPECT_EQ(c.run().reason, StopReason::converged);
  o.tol = 0;
  o.max_seconds = 0.05;
  const BatchObjective slow = [](const Eigen::MatrixXd& p, Eigen::VectorXd& costs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (Eigen::Index j = 0; j < p.cols(); ++j) costs(j) = rastrigin(p.col(j) * 10.0);
  };
  DeOptimizer d(3, o, slow);
  const DeSummary sd = d.run();
  EXPECT_EQ(sd.reason, StopReason::time_limit);
  EXPECT_LT(sd.seconds, 1.0);
}

TEST(DeOptimizer, InfeasiblePointsAreSimplyRejected) {
  DeOptions o;
  o.max_generations = 200;
  o.strategy = Strategy::shade;
  // Half the cube is infeasible (+inf); the optimum sits on the feasible side.
  DeOptimizer opt(2, o, [](const Eigen::MatrixXd& p, Eigen::VectorXd& c) {
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      c(j) = p(0, j) < 0.5 ? std::numeric_limits<double>::infinity()
                           : std::pow(p(0, j) - 0.7, 2) + std::pow(p(1, j) - 0.2, 2);
    }
  });
  const DeSummary s = opt.run();
  EXPECT_NEAR(s.best(0), 0.7, 1e-4);
  EXPECT_NEAR(s.best(1), 0.2, 1e-4);
}

TEST(DeOptimizer, TrialsStayInTheUnitCubeUnderEveryBoundHandling) {
  for (const char* b : {"midpoint", "reflect", "resample"}) {
    DeOptions o;
    o.bounds = parse_bound_handling(b);
    o.F = 1.9;  // large steps push many trials out of the cube
    o.max_generations = 30;
    bool inside = true;
    DeOptimizer opt(4, o, [&](const Eigen::MatrixXd& p, Eigen::VectorXd& c) {
      inside &= p.minCoeff() >= 0.0 && p.maxCoeff() <= 1.0;
      for (Eigen::Index j = 0; j < p.cols(); ++j) c(j) = (p.col(j).array() - 0.9).square().sum();
    });
    opt.run();
    EXPECT_TRUE(inside) << b;
  }
}

TEST(DeOptions, BadOptionsAreRejectedByName) {
  DeOptions o;
  o.CR = 1.5;
  EXPECT_THAT([&] { o.validate(3); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("de.CR")));
  o = DeOptions{};
  o.population = 3;
  EXPECT_THAT([&] { o.validate(3); }, ::testing::ThrowsMessage<ConfigError>(
                                          ::testing::HasSubstr("de.population 3 is too small")));
  EXPECT_THAT([] { parse_strategy("best2exp"); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("rand1bin, best1bin")));
}

}  // namespace perfit::de
