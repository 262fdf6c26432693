#include "perfit/model/hypothesis_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

// The single factor of a one-term hypothesis.
PmnfFactor only_factor(const PmnfHypothesis& h) {
  EXPECT_EQ(h.terms.size(), 1u);
  EXPECT_EQ(h.terms.front().factors.size(), 1u);
  return h.terms.front().factors.front();
}

}  // namespace

TEST(HypothesisSearch, FindsTheExactTermOfNoiseFreeData) {
  std::vector<double> x, y;
  for (double p : {2.0, 4.0, 8.0, 16.0, 32.0}) {
    for (int rep = 0; rep < 2; ++rep) {  // repetitions: the search models their mean
      x.push_back(p);
      y.push_back(3.0 + 2.0 * std::pow(p, 1.5) + (rep ? 0.01 : -0.01));
    }
  }
  const PmnfHypothesis h = search_single_parameter(x, y);
  ASSERT_FALSE(h.constant());
  const PmnfFactor f = only_factor(h);
  EXPECT_EQ(f.num, 3);
  EXPECT_EQ(f.den, 2);
  EXPECT_EQ(f.log_exp, 0);
  EXPECT_NEAR(h.c0, 3.0, 1e-9);
  EXPECT_NEAR(h.terms.front().coefficient, 2.0, 1e-12);
  EXPECT_LT(h.smape, 1e-9);
  EXPECT_TRUE(h.leave_one_out);
  EXPECT_EQ(h.expression({"p"}), "c0 + c1*p^(3/2)");
  EXPECT_NEAR(h.eval({64.0}), 3.0 + 2.0 * 512.0, 1e-9);
}

TEST(HypothesisSearch, ConstantDataGiveTheConstantModelAndLogTermsNeedXAtLeastOne) {
  const PmnfHypothesis c = search_single_parameter({1, 2, 4, 8}, {5, 5, 5, 5});
  EXPECT_TRUE(c.constant());
  EXPECT_EQ(c.c0, 5.0);
  EXPECT_EQ(c.expression({"n"}), "c0");
  // x < 1: no log2 term may be chosen, even for data that are exactly c1*log2-shaped elsewhere.
  std::vector<double> x = {0.5, 2, 4, 8, 16}, y;
  for (double v : x) y.push_back(1.0 + v);
  const PmnfFactor f = only_factor(search_single_parameter(x, y));
  EXPECT_EQ(f.log_exp, 0);
  EXPECT_EQ(f.num, 1);
  EXPECT_EQ(f.den, 1);
  EXPECT_THROW(search_single_parameter({1, 2, 2}, {1, 2, 3}), DataError);
}

// Strong scaling, t = 10 + 1000/p: Extra-P's default blocks have no negative exponent, so the
// default search cannot find it; with the option it finds the exact term.
TEST(HypothesisSearch, NegativeExponentsFindStrongScaling) {
  std::vector<double> x = {2, 4, 8, 16, 32, 64}, y;
  for (double p : x) y.push_back(10.0 + 1000.0 / p);
  const PmnfHypothesis plain = search_single_parameter(x, y);
  EXPECT_GT(plain.smape, 1.0);
  const PmnfHypothesis h = search_single_parameter(x, y, {true});
  const PmnfFactor f = only_factor(h);
  EXPECT_EQ(f.num, -1);
  EXPECT_EQ(f.den, 1);
  EXPECT_EQ(f.log_exp, 0);
  EXPECT_NEAR(h.c0, 10.0, 1e-9);
  EXPECT_NEAR(h.terms.front().coefficient, 1000.0, 1e-9);
  EXPECT_EQ(h.expression({"p"}), "c0 + c1*p^(-1/1)");
  // log2(x)^-j is infinite at x = 1: with the option, log terms need every x > 1.
  std::vector<double> x1 = {1, 2, 4, 8, 16}, y1;
  for (double p : x1) y1.push_back(1.0 + 3.0 * std::log2(p));
  EXPECT_EQ(only_factor(search_single_parameter(x1, y1, {true})).log_exp, 0);
  EXPECT_EQ(only_factor(search_single_parameter(x1, y1)).log_exp, 1);
}

// Two parameters on a full grid: the product and the sum of the single-parameter terms are
// each found exactly when the data are of that shape.
TEST(HypothesisSearch, TwoParametersCombineTheSingleParameterTerms) {
  std::vector<std::vector<double>> x(2);
  std::vector<double> prod, sum;
  for (double p : {2.0, 4.0, 8.0, 16.0, 32.0}) {
    for (double d : {1.0, 2.0, 3.0, 4.0, 5.0}) {
      x[0].push_back(p);
      x[1].push_back(d);
      prod.push_back(3.0 + 2.0 * std::sqrt(p) * d);
      sum.push_back(5.0 + p + 3.0 * std::log2(d));
    }
  }
  const PmnfHypothesis m = search_hypothesis(x, prod);
  EXPECT_EQ(m.expression({"p", "d"}), "c0 + c1*p^(1/2)*d^(1/1)");
  EXPECT_FALSE(m.leave_one_out);
  EXPECT_NEAR(m.c0, 3.0, 1e-9);
  EXPECT_NEAR(m.terms.front().coefficient, 2.0, 1e-9);
  EXPECT_LT(m.smape, 1e-9);
  EXPECT_NEAR(m.eval({64.0, 10.0}), 3.0 + 2.0 * 8.0 * 10.0, 1e-8);
  const PmnfHypothesis s = search_hypothesis(x, sum);
  EXPECT_EQ(s.expression({"p", "d"}), "c0 + c1*p^(1/1) + c2*log2(d)");
  EXPECT_NEAR(s.c0, 5.0, 1e-9);
  EXPECT_NEAR(s.terms[0].coefficient, 1.0, 1e-9);
  EXPECT_NEAR(s.terms[1].coefficient, 3.0, 1e-9);
  // d does not matter: the one remaining term, over every point
  std::vector<double> only_p;
  for (double p : x[0]) only_p.push_back(7.0 + 0.5 * p * p);
  EXPECT_EQ(search_hypothesis(x, only_p).expression({"p", "d"}), "c0 + c1*p^(2/1)");
  EXPECT_THROW(search_hypothesis({x[0], x[1], x[1]}, sum), ConfigError);
  EXPECT_THROW(search_hypothesis({{1, 2, 3, 1, 2, 3}, {1, 1, 1, 2, 2, 2}}, {1, 2, 3, 4, 5, 6}),
               DataError);
  EXPECT_THROW(search_hypothesis({{}, {}}, {}), DataError);  // a fold without training rows
}

}  // namespace perfit::model
