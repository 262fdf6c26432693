#include "perfit/model/hypothesis_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::model {

TEST(HypothesisSearch, FindsTheExactTermOfNoiseFreeData) {
  std::vector<double> x, y;
  for (double p : {2.0, 4.0, 8.0, 16.0, 32.0}) {
    for (int rep = 0; rep < 2; ++rep) {  // repetitions: the search models their mean
      x.push_back(p);
      y.push_back(3.0 + 2.0 * std::pow(p, 1.5) + (rep ? 0.01 : -0.01));
    }
  }
  const PmnfHypothesis h = search_single_parameter(x, y);
  ASSERT_FALSE(h.constant);
  EXPECT_EQ(h.num, 3);
  EXPECT_EQ(h.den, 2);
  EXPECT_EQ(h.log_exp, 0);
  EXPECT_NEAR(h.c0, 3.0, 1e-9);
  EXPECT_NEAR(h.c1, 2.0, 1e-12);
  EXPECT_LT(h.smape, 1e-9);
  EXPECT_EQ(h.expression("p"), "c0 + c1*p^(3/2)");
  EXPECT_NEAR(h.eval(64.0), 3.0 + 2.0 * 512.0, 1e-9);
}

TEST(HypothesisSearch, ConstantDataGiveTheConstantModelAndLogTermsNeedXAtLeastOne) {
  const PmnfHypothesis c = search_single_parameter({1, 2, 4, 8}, {5, 5, 5, 5});
  EXPECT_TRUE(c.constant);
  EXPECT_EQ(c.c0, 5.0);
  EXPECT_EQ(c.expression("n"), "c0");
  // x < 1: no log2 term may be chosen, even for data that are exactly c1*log2-shaped elsewhere.
  std::vector<double> x = {0.5, 2, 4, 8, 16}, y;
  for (double v : x) y.push_back(1.0 + v);
  const PmnfHypothesis h = search_single_parameter(x, y);
  EXPECT_EQ(h.log_exp, 0);
  EXPECT_EQ(h.num, 1);
  EXPECT_EQ(h.den, 1);
  EXPECT_THROW(search_single_parameter({1, 2, 2}, {1, 2, 3}), DataError);
}

}  // namespace perfit::model
