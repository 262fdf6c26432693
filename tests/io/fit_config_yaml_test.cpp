#include "perfit/io/fit_config_yaml.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(FitConfigYaml, ShippedExampleParsesToTheDefaults) {
  std::ifstream in(std::string(PERFIT_SOURCE_DIR) + "/configs/fit.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  de::FitConfig c, defaults;
  island::IslandOptions isl, isl_defaults;
  apply_fit_config_yaml(ss.str(), "configs/fit.yaml", c, &isl);
  EXPECT_EQ(isl.interval, isl_defaults.interval);
  EXPECT_EQ(isl.migrants, isl_defaults.migrants);
  EXPECT_EQ(isl.topology.kind, isl_defaults.topology.kind);
  EXPECT_EQ(isl.replace, isl_defaults.replace);
  EXPECT_EQ(isl.mode, isl_defaults.mode);
  EXPECT_EQ(c.data, "demo.h5");
  EXPECT_EQ(c.fit.de.strategy, defaults.fit.de.strategy);
  EXPECT_EQ(c.fit.de.max_generations, defaults.fit.de.max_generations);
  EXPECT_EQ(c.fit.de.tol, defaults.fit.de.tol);
  EXPECT_EQ(c.fit.de.target_cost, defaults.fit.de.target_cost);
  EXPECT_EQ(c.cost.residual, defaults.cost.residual);
  EXPECT_EQ(c.fit.polish, defaults.fit.polish);
  EXPECT_EQ(c.fit.progress_every, defaults.fit.progress_every);
}

TEST(FitConfigYaml, RoundTripsThroughTheConfigAsRun) {
  de::FitConfig c;
  apply_fit_config_yaml("data: a.h5\nset: /x/y\nseed: 9\nde: {strategy: jso, CR: 0.3}\ncost: {lambda: 0.5}\n",
                        "inline", c);
  de::FitConfig back;
  apply_fit_config_yaml(fit_config_to_yaml(c), "as-run", back);
  EXPECT_EQ(back.set, "/x/y");
  EXPECT_EQ(back.fit.de.seed, 9u);
  EXPECT_EQ(back.fit.de.strategy, de::Strategy::jso);
  EXPECT_EQ(back.fit.de.CR, 0.3);
  EXPECT_EQ(back.cost.lambda, 0.5);
}

TEST(FitConfigYaml, IslandsSectionWithPerIslandOverridesOfTheFinalBase) {
  de::FitConfig c;
  island::IslandOptions isl;
  // per_island comes before de: in the file but starts from the final de options.
  apply_fit_config_yaml("islands: {topology: torus, mode: async, per_island: [{strategy: jso}, {CR: 0.2}]}\n"
                        "de: {strategy: shade, CR: 0.5}\n", "inline", c, &isl);
  EXPECT_EQ(isl.topology.kind, island::TopologyKind::torus);
  EXPECT_EQ(isl.mode, island::MigrationMode::async);
  ASSERT_EQ(isl.per_island.size(), 2u);
  EXPECT_EQ(isl.per_island[0].strategy, de::Strategy::jso);
  EXPECT_EQ(isl.per_island[0].CR, 0.5);
  EXPECT_EQ(isl.per_island[1].strategy, de::Strategy::shade);
  EXPECT_EQ(isl.per_island[1].CR, 0.2);
  EXPECT_THAT([&] { apply_fit_config_yaml("islands: {topolgy: ring}\n", "f.yaml", c, &isl); },
              ThrowsMessage<ConfigError>(HasSubstr("unknown key 'islands.topolgy'")));
}

TEST(FitConfigYaml, UnknownOrBadKeysAreNamed) {
  de::FitConfig c;
  EXPECT_THAT([&] { apply_fit_config_yaml("de: {stratgy: jso}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(AllOf(HasSubstr("'f.yaml'"), HasSubstr("unknown key 'de.stratgy'"))));
  EXPECT_THAT([&] { apply_fit_config_yaml("seed: many\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("key 'seed': found 'many'")));
  EXPECT_THAT([&] { apply_fit_config_yaml("de: {max_generations: 1.5}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("expected a whole number")));
  EXPECT_THAT([&] { apply_fit_config_yaml("cost: {residual: mse}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("residual 'mse' is not one of")));
  de::FitConfig empty;
  EXPECT_THAT([&] { empty.validate(); }, ThrowsMessage<ConfigError>(HasSubstr("--data")));
}

}  // namespace perfit::io
