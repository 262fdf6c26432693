#include "perfit/core/rng.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace perfit {

TEST(Rng, SameSeedGivesSameStream) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, StateRoundTripContinuesTheStream) {
  Rng a(7);
  for (int i = 0; i < 10; ++i) a.normal();
  Rng b(0);
  b.set_state(a.state());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(a.normal(), b.normal());
}

TEST(Rng, UniformAndNormalHaveTheRightMoments) {
  Rng r(1);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    const double z = r.normal();
    sn += z;
    sn2 += z * z;
  }
  EXPECT_NEAR(su / n, 0.5, 0.005);
  EXPECT_NEAR(sn / n, 0.0, 0.01);
  EXPECT_NEAR(sn2 / n, 1.0, 0.01);
}

TEST(Rng, BelowStaysInRangeAndHitsEveryValue) {
  Rng r(3);
  int seen[7] = {};
  for (int i = 0; i < 7000; ++i) {
    const auto v = r.below(7);
    ASSERT_LT(v, 7u);
    ++seen[v];
  }
  for (int c : seen) EXPECT_GT(c, 800);
}

TEST(Rng, DerivedStreamsDiffer) {
  EXPECT_NE(Rng::derive(1, 0).next(), Rng::derive(1, 1).next());
  EXPECT_EQ(Rng::derive(1, 5).next(), Rng::derive(1, 5).next());
}

}  // namespace perfit
