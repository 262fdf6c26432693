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
  apply_fit_config_yaml(ss.str(), "configs/fit.yaml", c);
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
