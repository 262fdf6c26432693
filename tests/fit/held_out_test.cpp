#include "perfit/fit/held_out.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/fit/engine.hpp"

namespace perfit::fit {

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Two runs per worker count of t = 10 + 100/p + 2 log2(p), 1% noise that alternates in sign.
data::MeasurementTable runs(const std::vector<double>& workers) {
  std::vector<double> p, t;
  for (const double w : workers) {
    for (const double sign : {-1.0, 1.0}) {
      p.push_back(w);
      t.push_back((10.0 + 100.0 / w + 2.0 * std::log2(w)) * (1.0 + 0.01 * sign));
    }
  }
  data::MeasurementTable table;
  table.add_column(data::Column("p", p));
  table.add_column(data::Column("time", t));
  table.attributes()["target"] = std::string("time");
  return table;
}

FitProblem problem(const std::string& expression, const data::MeasurementTable& t) {
  model::ModelSpec s;
  s.name = "t";
  s.expression = expression;
  s.params = {{"c0", 0, 100, false}, {"c1", 0, 1000, false}, {"c2", 0, 10, false}};
  if (expression.find("c2") == std::string::npos) s.params.pop_back();
  FitProblem p;
  p.rows = std::make_shared<const data::MeasurementTable>(t);
  p.model = std::make_shared<const model::Model>(s, t.column_names());
  p.quiet = true;
  p.forward_check = true;
  return p;
}

const std::vector<double> kWorkers = {1, 2, 4, 8, 16, 32, 64};

}  // namespace

TEST(ForwardCheck, ARightShapeMissesItsHeldOutScalesByAboutItsNoise) {
  const FitReport r =
      fit(problem("c0 + c1/p + c2*log2(p)", runs(kWorkers)), {}, {}, island::serial_layout());
  EXPECT_EQ(r.forward.dof, 4u);  // the 4 largest of 7 scales, each predicted from the smaller ones
  EXPECT_LT(r.forward.log_sd, 0.03);
  EXPECT_NEAR(r.forward.step_log, std::log(2.0), 1e-12);
  EXPECT_THAT(r.forward.how,
              StartsWith("forward check: refitted below each of the 4 largest value(s) of p"));
}

TEST(ForwardCheck, AShapeThatMissesTheDataMissesMoreAndGrowsWithTheDistance) {
  const FitReport right =
      fit(problem("c0 + c1/p + c2*log2(p)", runs(kWorkers)), {}, {}, island::serial_layout());
  const FitReport wrong =
      fit(problem("c0 + c1/p", runs(kWorkers)), {}, {}, island::serial_layout());
  EXPECT_GT(wrong.forward.log_sd, 3.0 * right.forward.log_sd);
  EXPECT_GT(wrong.forward.log_sd, 0.05);
  EXPECT_GT(wrong.forward.growth, 0.5);
  // The refits start from the fit: the fit itself is the same with the check or without.
  FitProblem off = problem("c0 + c1/p", runs(kWorkers));
  off.forward_check = false;
  const FitReport unchecked = fit(off, {}, {}, island::serial_layout());
  EXPECT_EQ(unchecked.params, wrong.params);
  EXPECT_EQ(unchecked.forward.dof, 0u);
}

TEST(ForwardCheck, RefitsOnConfigurationsMeasureWhatRefitsOnRowsDo) {
  // Two runs per configuration: the refits train on 7 configurations instead of 14 rows (exact for
  // squared residuals), and are judged on the rows either way.
  FitProblem rows = problem("c0 + c1/p", runs(kWorkers));
  rows.compress = false;  // fit_folds on the rows
  const FitReport a = fit(problem("c0 + c1/p", runs(kWorkers)), {}, {}, island::serial_layout());
  const FitReport b = fit(rows, {}, {}, island::serial_layout());
  ASSERT_EQ(a.forward.dof, 4u);
  EXPECT_NEAR(a.forward.log_sd, b.forward.log_sd, 1e-6 * b.forward.log_sd);
  EXPECT_NEAR(a.forward.growth, b.forward.growth, 1e-6);
}

TEST(ForwardCheck, FewerThanThreeScalesSayWhyNothingWasMeasured) {
  const FitReport r = fit(problem("c0 + c1/p", runs({4, 8})), {}, {}, island::serial_layout());
  EXPECT_EQ(r.forward.dof, 0u);
  EXPECT_THAT(r.forward.how, HasSubstr("p has 2 value(s), three are needed"));
  std::vector<double> continuous;  // a column of 70 values is no scale: its "steps" are noise
  for (int k = 0; k < 70; ++k) continuous.push_back(1.0 + 0.1 * k);
  const FitReport c = fit(problem("c0 + c1/p", runs(continuous)), {}, {}, island::serial_layout());
  EXPECT_EQ(c.forward.dof, 0u);
  EXPECT_THAT(c.forward.how, HasSubstr("p has 70 distinct values, more than the 64"));
}

TEST(ForwardCheck, TheLastFoldGrownAsItGrewOneDofPerFold) {
  FoldFit a, b;
  a.predicted = Eigen::VectorXd::Constant(2, std::exp(0.02));
  a.measured = Eigen::VectorXd::Ones(2);
  b.predicted = Eigen::VectorXd::Constant(2, std::exp(0.05));
  b.measured = Eigen::VectorXd::Ones(2);
  const ChoiceSpread s = last_fold_spread({a, b}, "x");
  EXPECT_EQ(s.dof, 2u);
  EXPECT_NEAR(s.log_sd, 0.05 * 2.5, 1e-12);
  EXPECT_THAT(s.how, HasSubstr("x2.5 as it grew"));
  const ChoiceSpread shrank = last_fold_spread({b, a}, "x");
  EXPECT_NEAR(shrank.log_sd, 0.02, 1e-12);
  b.failed = true;
  EXPECT_EQ(last_fold_spread({a, b}, "x").dof, 0u);
}

}  // namespace perfit::fit
