#include "perfit/island/topology.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfit/core/error.hpp"

namespace perfit::island {

TEST(Topology, RingsTorusAndFullHaveTheExpectedNeighboursAndDiameters) {
  TopologySpec s;
  s.kind = TopologyKind::ring;
  Topology t = make_topology(s, 5, 0, 0);
  EXPECT_EQ(t.out[4], std::vector<int>{0});
  EXPECT_EQ(t.in[0], std::vector<int>{4});
  EXPECT_EQ(t.diameter(), 4);
  s.kind = TopologyKind::ring_bi;
  t = make_topology(s, 5, 0, 0);
  EXPECT_EQ(t.out[0], (std::vector<int>{1, 4}));
  EXPECT_EQ(t.diameter(), 2);
  s.kind = TopologyKind::torus;  // 3 x 4
  t = make_topology(s, 12, 0, 0);
  EXPECT_EQ(t.out[0], (std::vector<int>{1, 3, 4, 8}));
  EXPECT_EQ(t.diameter(), 3);
  s.kind = TopologyKind::full;
  t = make_topology(s, 4, 0, 0);
  EXPECT_EQ(t.out[2], (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(t.diameter(), 1);
  EXPECT_TRUE(make_topology(s, 1, 0, 0).out[0].empty());  // one island: no migration
}

TEST(Topology, RandomRegularIsKRegularRedrawnPerEpochAndTheSameOnEveryRank) {
  TopologySpec s;
  s.kind = TopologyKind::random_regular;
  s.degree = 2;
  const Topology a = make_topology(s, 9, 42, 3), b = make_topology(s, 9, 42, 3),
                 c = make_topology(s, 9, 42, 4);
  EXPECT_EQ(a.out, b.out);       // every rank draws the same graph from (seed, epoch)
  EXPECT_NE(a.out, c.out);       // and a new one the next epoch
  for (int i = 0; i < 9; ++i) {  // exactly 2 out and 2 in
    EXPECT_EQ(a.out[static_cast<std::size_t>(i)].size(), 2u);
    EXPECT_EQ(a.in[static_cast<std::size_t>(i)].size(), 2u);
  }
  EXPECT_GT(a.diameter(), 0);  // strongly connected through its first cycle
  s.degree = 20;               // more than n-1 others: everyone else
  EXPECT_EQ(make_topology(s, 3, 0, 0).out[0], (std::vector<int>{1, 2}));
  s.degree = 0;
  EXPECT_THAT([&] { make_topology(s, 9, 0, 0); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("degree 0 must be >= 1")));
}

TEST(Topology, CustomAdjacencyIsCheckedAgainstTheIslandCount) {
  TopologySpec s;
  s.kind = TopologyKind::custom;
  s.adjacency = {{1, 2}, {2}, {0}};
  const Topology t = make_topology(s, 3, 0, 0);
  EXPECT_EQ(t.in[2], (std::vector<int>{0, 1}));
  EXPECT_THAT([&] { make_topology(s, 4, 0, 0); },
              ::testing::ThrowsMessage<ConfigError>(
                  ::testing::HasSubstr("lists 3 islands, the job has 4")));
  s.adjacency = {{5}, {0}, {0}};
  EXPECT_THAT([&] { make_topology(s, 3, 0, 0); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("island 0 sends to 5")));
}

}  // namespace perfit::island
