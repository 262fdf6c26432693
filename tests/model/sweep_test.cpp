#include "perfit/model/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

SweepReport sweep(const std::string& expr, std::vector<ParamSpec> params,
                  std::vector<TermSpec> terms, const Eigen::VectorXd& values, double lo,
                  double hi) {
  ModelSpec s;
  s.name = "m";
  s.expression = expr;
  s.params = std::move(params);
  s.terms = std::move(terms);
  const std::vector<double> x = doubling_sweep(lo, hi);
  data::MeasurementTable t;
  t.add_column(data::Column("p", x));
  const Model m(s, t.column_names());
  const Evaluator ev(m, t);
  return analyse_sweep(ev, values, "p", x, 0.5);
}

}  // namespace

// t = a/p + c*p with a = 100, c = 1: compute and communication are equal at p = 10, the time
// is smallest at p = 8 of the doubling sweep, and the efficiency 101/(p t) drops below 0.5
// after p = 8 (0.62 at 8, 0.28 at 16).
TEST(Sweep, FindsTheCrossoverTheMinimumAndTheEfficiencyLimitOfAnAnalyticModel) {
  const SweepReport r =
      sweep("compute + comm", {{"a", 0, 1000, false}, {"c", 0, 10, false}},
            {{"compute", "a/p"}, {"comm", "c*p"}}, Eigen::Vector2d(100, 1), 1, 1024);
  ASSERT_EQ(r.x.size(), 11u);
  EXPECT_DOUBLE_EQ(r.time[3], 100.0 / 8 + 8);
  EXPECT_EQ(r.best_x, 8.0);
  EXPECT_EQ(r.last_efficient_x, 8.0);
  EXPECT_NEAR(r.efficiency[3], 101.0 / (8 * 20.5), 1e-12);
  ASSERT_EQ(r.crossovers.size(), 1u);
  EXPECT_EQ(r.crossovers[0].from, "compute");
  EXPECT_EQ(r.crossovers[0].to, "comm");
  // linear in log p between 8 and 16: log2 p = 3 + 4.5/14.25
  EXPECT_NEAR(r.crossovers[0].at, std::exp2(3 + 4.5 / 14.25), 1e-9);
  for (std::size_t i = 0; i < r.x.size(); ++i)
    EXPECT_NEAR(r.share.row(static_cast<Eigen::Index>(i)).sum(), 1.0, 1e-12);
}

TEST(Sweep, DoublingLadderEndsAtHiAndBadRangesAreRefused) {
  EXPECT_EQ(doubling_sweep(1, 8), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(doubling_sweep(3, 20), (std::vector<double>{3, 6, 12, 20}));
  EXPECT_THROW(doubling_sweep(0, 8), ConfigError);
  EXPECT_THROW(doubling_sweep(8, 8), ConfigError);
}

TEST(Sweep, ANonPositivePredictionIsADataError) {
  EXPECT_THROW(sweep("a - p", {{"a", 0, 10, false}}, {}, Eigen::VectorXd::Constant(1, 4.0), 1, 8),
               DataError);
}

}  // namespace perfit::model
