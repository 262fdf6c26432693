#include "perfit/fit/predictive.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace perfit::fit {

using ::testing::HasSubstr;

TEST(Predictive, StudentQuantilesMatchTables) {
  EXPECT_NEAR(t_quantile(0.95, 1), 6.3138, 1e-4);  // exact forms
  EXPECT_NEAR(t_quantile(0.95, 2), 2.9200, 1e-4);
  EXPECT_NEAR(t_quantile(0.95, 3), 2.3534, 2e-3);  // expansion
  EXPECT_NEAR(t_quantile(0.95, 5), 2.0150, 1e-3);
  EXPECT_NEAR(t_quantile(0.975, 10), 2.2281, 1e-3);
  EXPECT_NEAR(t_quantile(0.95, 1e6), 1.6449, 1e-4);  // the normal's
  EXPECT_NEAR(t_quantile(0.05, 5), -2.0150, 1e-3);
}

TEST(Predictive, NoiseAndConstantsAddInLogSpace) {
  const Eigen::VectorXd pred = Eigen::VectorXd::Constant(1, 100.0);
  SpreadParts parts;
  parts.noise_log_sd = 0.03;
  parts.noise_dof = 1000000;
  parts.bootstrap_refits = 50;
  const PredictiveInterval iv =
      predictive_interval(pred, Eigen::VectorXd::Constant(1, 0.04), parts, 0.9);
  ASSERT_TRUE(iv.available);
  const double half = 1.6449 * 0.05;  // sqrt(0.03^2 + 0.04^2)
  EXPECT_NEAR(iv.lo(0), 100.0 * std::exp(-half), 1e-2);
  EXPECT_NEAR(iv.hi(0), 100.0 * std::exp(half), 1e-2);
  EXPECT_THAT(iv.contains, HasSubstr("run-to-run noise and misfit"));
  EXPECT_THAT(iv.contains, HasSubstr("the constants (50 bootstrap refits)"));
  EXPECT_THAT(iv.contains, HasSubstr("not the model choice"));
}

TEST(Predictive, TheChoiceWidensWhenLargerWithItsOwnDof) {
  const Eigen::VectorXd pred = Eigen::VectorXd::Constant(1, 10.0);
  SpreadParts parts;
  parts.noise_log_sd = 0.01;
  parts.noise_dof = 20;
  parts.choice_log_sd = 0.1;
  parts.choice_dof = 3;
  parts.choice_how = "its errors predicting 3 held-out scale(s), split forward:p";
  const PredictiveInterval iv = predictive_interval(pred, Eigen::VectorXd(), parts, 0.9);
  ASSERT_TRUE(iv.available);
  EXPECT_NEAR(std::log(iv.hi(0) / 10.0), t_quantile(0.95, 3) * 0.1, 1e-12);
  EXPECT_THAT(iv.contains, HasSubstr("the model choice (its errors predicting 3 held-out scale(s), "
                                     "split forward:p; the widest part, used)"));
  EXPECT_THAT(iv.contains, HasSubstr("not the constants' uncertainty"));
}

TEST(Predictive, TheChoicePartFollowsTheDistanceBeyondTheMeasuredRange) {
  // Rows inside the range, half a step, one step and two steps beyond (steps of x2).
  const Eigen::VectorXd pred = Eigen::VectorXd::Constant(4, 10.0);
  Eigen::VectorXd beyond(4);
  beyond << 0.0, 0.5 * std::log(2.0), std::log(2.0), 2.0 * std::log(2.0);
  SpreadParts parts;
  parts.noise_log_sd = 0.02;
  parts.noise_dof = 1000000;
  parts.choice_log_sd = 0.1;
  parts.choice_dof = 1000000;
  parts.choice_how = "forward:p";
  parts.choice_step_log = std::log(2.0);
  parts.choice_growth = 1.5;
  const PredictiveInterval iv = predictive_interval(pred, {}, parts, 0.9, beyond);
  ASSERT_TRUE(iv.available);
  const double z = 1.6449;
  EXPECT_NEAR(std::log(iv.hi(0) / 10.0), z * 0.02, 1e-4);  // inside: the noise alone
  EXPECT_NEAR(std::log(iv.hi(1) / 10.0), z * 0.1 * std::pow(0.5, 1.5), 1e-4);
  EXPECT_NEAR(std::log(iv.hi(2) / 10.0), z * 0.1, 1e-4);  // one step: as the folds measured it
  EXPECT_NEAR(std::log(iv.hi(3) / 10.0), z * 0.1 * std::pow(2.0, 1.5), 1e-4);
  EXPECT_THAT(
      iv.contains,
      HasSubstr(
          "none inside the measured range, beyond it growing as distance^1.5 in steps of x2"));
  // A result without the distance (older files): the choice part everywhere, as before.
  parts.choice_step_log = std::numeric_limits<double>::quiet_NaN();
  const PredictiveInterval old = predictive_interval(pred, {}, parts, 0.9, beyond);
  EXPECT_NEAR(std::log(old.hi(0) / 10.0), z * 0.1, 1e-4);
  EXPECT_THAT(old.contains, ::testing::Not(HasSubstr("inside the measured range")));
}

TEST(Predictive, TooLittleDataGivesNoIntervalAndSaysWhy) {
  const Eigen::VectorXd pred = Eigen::VectorXd::Constant(2, 10.0);
  const PredictiveInterval iv = predictive_interval(pred, Eigen::VectorXd(), SpreadParts{}, 0.9);
  EXPECT_FALSE(iv.available);
  EXPECT_THAT(iv.contains, HasSubstr("too little data to estimate the noise"));
}

}  // namespace perfit::fit
