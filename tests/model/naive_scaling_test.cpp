#include "perfit/model/naive_scaling.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/data/column.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::model {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace {

// The spec's prediction at each x, through the one expression evaluator.
std::vector<double> predict(const ModelSpec& s, const std::vector<double>& x) {
  data::MeasurementTable t;
  t.add_column(data::Column("gpus", x));
  const Model m(s, {"gpus"});
  const Eigen::VectorXd p = Evaluator(m, t).predict(Eigen::VectorXd(0));
  return {p.data(), p.data() + p.size()};
}

}  // namespace

TEST(NaiveScaling, IdealScalesTheLargestPointsMean) {
  // 2 repetitions at the largest x (8): mean 10; ideal from there: 10 * 8 / x.
  const ModelSpec s = naive_spec(NaiveKind::ideal, "gpus", {1, 2, 8, 8, 4}, {70, 38, 9, 11, 20});
  EXPECT_TRUE(s.params.empty());
  const auto p = predict(s, {16, 8, 32});
  EXPECT_DOUBLE_EQ(p[0], 5.0);
  EXPECT_DOUBLE_EQ(p[1], 10.0);
  EXPECT_DOUBLE_EQ(p[2], 2.5);
}

TEST(NaiveScaling, LoglogContinuesTheLineThroughTheTwoLargest) {
  // t = 100 * x^-0.5 at x = 4 (50) and 16 (25): slope -0.5, so 12.5 at 64; the first point
  // (x = 1, off the line) is not used.
  const ModelSpec s = naive_spec(NaiveKind::loglog, "gpus", {1, 4, 16}, {1000, 50, 25});
  const auto p = predict(s, {64, 16});
  EXPECT_NEAR(p[0], 12.5, 1e-12);
  EXPECT_NEAR(p[1], 25.0, 1e-12);
}

TEST(NaiveScaling, IdealFitGoesThroughEveryScalesMean) {
  // means 80 at 1, 45 at 2 (two runs), 20 at 4: t * x = 80, 90, 80; c = (80 * 90 * 80)^(1/3).
  const ModelSpec s = naive_spec(NaiveKind::ideal_fit, "gpus", {1, 2, 2, 4}, {80, 40, 50, 20});
  EXPECT_TRUE(s.params.empty());
  const double c = std::cbrt(80.0 * 90.0 * 80.0);
  const auto p = predict(s, {8, 1});
  EXPECT_NEAR(p[0], c / 8, 1e-12);
  EXPECT_NEAR(p[1], c, 1e-12);
  EXPECT_EQ(s.name, "ideal_fit");
  EXPECT_THAT(
      [] {
        naive_spec(NaiveKind::ideal_fit, "gpus", {1, 2}, {3, 0});
      },
      ThrowsMessage<DataError>(
          HasSubstr("ideal-fit over 'gpus': the mean time at gpus=2 is 0, expected > 0")));
}

TEST(NaiveScaling, TooFewScalesOrNonPositiveTimesSayWhat) {
  EXPECT_THAT(
      [] {
        naive_spec(NaiveKind::loglog, "gpus", {8, 8}, {1, 2});
      },
      ThrowsMessage<DataError>(HasSubstr(
          "naive-loglog over 'gpus': found 1 distinct positive value(s), expected at least 2")));
  EXPECT_THAT([] { naive_spec(NaiveKind::ideal, "gpus", {}, {}); },
              ThrowsMessage<DataError>(HasSubstr("expected at least 1")));
  EXPECT_THAT(
      [] {
        naive_spec(NaiveKind::ideal, "gpus", {1, 2}, {3, -1});
      },
      ThrowsMessage<DataError>(HasSubstr("the mean time at gpus=2 is -1, expected > 0")));
}

TEST(NaiveScaling, WordsRoundTrip) {
  NaiveKind k{};
  EXPECT_TRUE(parse_naive_word("naive-loglog", k));
  EXPECT_EQ(k, NaiveKind::loglog);
  EXPECT_STREQ(naive_word(k), "naive-loglog");
  EXPECT_TRUE(parse_naive_word("ideal-fit", k));
  EXPECT_EQ(k, NaiveKind::ideal_fit);
  EXPECT_STREQ(naive_word(k), "ideal-fit");
  EXPECT_FALSE(parse_naive_word("naive", k));
}

}  // namespace perfit::model
