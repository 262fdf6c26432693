#include "perfit/island/migration.hpp"

#include <gtest/gtest.h>

namespace perfit::island {

de::DeState population() {
  de::DeState s;
  s.pop.resize(2, 5);
  s.cost.resize(5);
  for (int j = 0; j < 5; ++j) {
    s.pop(0, j) = 0.1 * j;
    s.pop(1, j) = 0.2 * j;
    s.cost(j) = 10.0 - j;  // individual 4 is the best, 0 the worst
  }
  return s;
}

TEST(Migration, BestEmigrantsAreTheBestPackedWithTheirCost) {
  Rng rng(1);
  const std::vector<double> m = select_emigrants(population(), 2, EmigrantPolicy::best, rng);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0], 6.0);
  EXPECT_DOUBLE_EQ(m[1], 0.4);
  EXPECT_EQ(m[3], 7.0);
}

TEST(Migration, TournamentNeverPicksTheWorstOfTwo) {
  Rng rng(5);
  de::DeState s = population();
  for (int rep = 0; rep < 50; ++rep) {
    const std::vector<double> m = select_emigrants(s, 1, EmigrantPolicy::tournament, rng);
    EXPECT_LT(m[0], 10.0 + 1e-12);
  }
}

TEST(Migration, WorstReplacementAndFairReplacement) {
  Rng rng(2);
  const std::vector<double> arrivals = {8.5, 0.9, 0.9, 20.0, 0.8, 0.8};  // one better, one worse
  de::DeState s = population();
  EXPECT_EQ(accept_immigrants(s, arrivals, 2, ReplacePolicy::worst, rng), 2u);
  EXPECT_EQ(s.cost(0), 8.5);   // the worst (10) took the better migrant
  EXPECT_EQ(s.cost(1), 20.0);  // the next worst (9) took the other, unconditionally
  de::DeState f = population();
  EXPECT_EQ(accept_immigrants(f, arrivals, 2, ReplacePolicy::fair, rng), 1u);
  EXPECT_EQ(f.cost(0), 8.5);
  EXPECT_EQ(f.cost(1), 9.0);  // 20 is not better than 9: not accepted
  EXPECT_DOUBLE_EQ(f.pop(0, 0), 0.9);
}

TEST(Migration, RandomReplacementSparesTheBest) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    Rng rng(seed);
    de::DeState s = population();
    accept_immigrants(s, {50.0, 0.0, 0.0}, 2, ReplacePolicy::random_non_best, rng);
    EXPECT_EQ(s.cost(4), 6.0);
  }
}

}  // namespace perfit::island
