#include "perfit/fit/run_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::fit {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(RunConfig, ShippedExampleParsesToTheDefaults) {
  fit::RunConfig c, defaults;
  apply_run_config_yaml(read(std::string(PERFIT_SOURCE_DIR) + "/configs/fit.yaml"),
                        "configs/fit.yaml", c);
  // Every option but the paths has its default there: the formatted values agree.
  for (const auto& o : fit::run_config_option_table()) {
    if (o.key == "data" || o.key == "set" || o.key == "out") continue;
    EXPECT_EQ(o.format(c), o.format(defaults)) << o.key;
  }
  EXPECT_EQ(c.data, "demo.h5");
}

TEST(RunConfig, ShippedExampleListsEveryKeyOfTheOptionTable) {
  const std::string text = read(std::string(PERFIT_SOURCE_DIR) + "/configs/fit.yaml");
  for (const auto& o : fit::run_config_option_table()) {
    const std::string name =
        o.key.substr(o.key.rfind('.') == std::string::npos ? 0 : o.key.rfind('.') + 1);
    if (o.test_hook) {
      EXPECT_EQ(text.find(name + ":"), std::string::npos)
          << o.key << " is a test hook, not for the example";
    } else {
      EXPECT_NE(text.find(name + ":"), std::string::npos) << o.key << " is not in configs/fit.yaml";
    }
  }
}

TEST(RunConfig, EveryOptionHasItsOwnFlag) {
  std::set<std::string> flags;
  for (const auto& o : fit::run_config_option_table()) {
    EXPECT_FALSE(o.flag.empty()) << o.key;
    EXPECT_TRUE(flags.insert(o.flag).second) << "flag --" << o.flag << " is used twice";
  }
}

TEST(RunConfig, TheConfigAsRunLoadsBackToTheSameValues) {
  fit::RunConfig c;
  apply_run_config_yaml(
      "data: a.h5\nset: /x/y\nseed: 18446744073709551615\n"
      "de: {strategy: jso, CR: 0.3, target_cost: 0.12345678901234567}\ncost: {lambda: 0.5}\n"
      "islands: {topology: custom, adjacency: [[1, 2], [0], [0, 1]], mode: async,\n"
      "          per_island: [{strategy: jso}, {CR: 0.2, F: 0.7}]}\n",
      "inline", c);
  fit::RunConfig back;
  apply_run_config_yaml(run_config_to_yaml(c), "as-run", back);
  for (const auto& o : fit::run_config_option_table()) {
    EXPECT_EQ(o.format(back), o.format(c)) << o.key;
  }
  EXPECT_EQ(back.de.seed, 18446744073709551615ULL);
  EXPECT_EQ(back.de.target_cost, 0.12345678901234567);  // full precision
  EXPECT_EQ(back.islands.topology.adjacency, (std::vector<std::vector<int>>{{1, 2}, {0}, {0, 1}}));
  back.out = "r.h5";
  back.resolve();
  ASSERT_EQ(back.islands.per_island.size(), 2u);
  EXPECT_EQ(back.islands.per_island[1].F, 0.7);
}

TEST(RunConfig, ConfigsThatDifferInOneKeyEachReadBackAsThemselves) {
  // The text is emitted entry by entry and each entry kept (10^5 winners' configs differ in the
  // set only): the kept pieces must never leak one config's values into another's.
  fit::RunConfig a;
  apply_run_config_yaml("data: a.h5\nset: /x/a\nde: {strategy: jso, CR: 0.3}\n", "inline", a);
  fit::RunConfig b = a;
  b.set = "/x/b";
  b.de.CR = 0.25;
  const std::string ya = run_config_to_yaml(a), yb = run_config_to_yaml(b);
  EXPECT_EQ(run_config_to_yaml(a), ya);
  EXPECT_NE(ya, yb);
  fit::RunConfig back_a, back_b;
  apply_run_config_yaml(ya, "a", back_a);
  apply_run_config_yaml(yb, "b", back_b);
  for (const auto& o : fit::run_config_option_table()) {
    EXPECT_EQ(o.format(back_a), o.format(a)) << o.key;
    EXPECT_EQ(o.format(back_b), o.format(b)) << o.key;
  }
  EXPECT_EQ(back_b.set, "/x/b");
  EXPECT_EQ(back_b.de.CR, 0.25);
}

TEST(RunConfig, TextValuesAreWrittenAsYamlCppWritesThemAndReadBack) {
  // Plain printable text is written without yaml-cpp's emitter (the set of 10^4 winners): the
  // bytes must be the emitter's, and text it must escape must still go through it.
  for (const std::string set : {"/x/r0/time", "", "/a b/#c: d", "- x", "/x/\"q\"", "/x/back\\slash",
                                "/x/tab\there", "/x/\xc3\xa9t\xc3\xa9"}) {
    fit::RunConfig c;
    c.set = set;
    const std::string yaml = run_config_to_yaml(c);
    YAML::Emitter e;
    e << YAML::BeginMap << YAML::Key << "set" << YAML::Value << YAML::DoubleQuoted << set
      << YAML::EndMap;
    EXPECT_THAT(yaml, HasSubstr(std::string("\n") + e.c_str() + "\n")) << set;
    fit::RunConfig back;
    apply_run_config_yaml(yaml, "as-run", back);
    EXPECT_EQ(back.set, set);
  }
}

TEST(RunConfig, PerIslandOverridesStartFromTheFinalBase) {
  fit::RunConfig c;
  // per_island comes before de: in the file but starts from the final de options.
  apply_run_config_yaml(
      "islands: {topology: torus, mode: async, per_island: [{strategy: jso}, {CR: 0.2}]}\n"
      "de: {strategy: shade, CR: 0.5}\n",
      "inline", c);
  c.data = c.set = c.out = "x";
  c.resolve();
  const auto& isl = c.islands;
  EXPECT_EQ(isl.topology.kind, island::TopologyKind::torus);
  EXPECT_EQ(isl.mode, island::MigrationMode::async);
  ASSERT_EQ(isl.per_island.size(), 2u);
  EXPECT_EQ(isl.per_island[0].strategy, de::Strategy::jso);
  EXPECT_EQ(isl.per_island[0].CR, 0.5);
  EXPECT_EQ(isl.per_island[1].strategy, de::Strategy::shade);
  EXPECT_EQ(isl.per_island[1].CR, 0.2);
  EXPECT_THAT([&] { apply_run_config_yaml("islands: {topolgy: ring}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("unknown key 'islands.topolgy'")));
  EXPECT_THAT([&] { apply_run_config_yaml("islands: {per_island: [{CR: 2}]}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("per_island entry 1 key 'CR': found '2'")));
}

TEST(RunConfig, UnknownOrBadKeysAreNamed) {
  fit::RunConfig c;
  EXPECT_THAT(
      [&] { apply_run_config_yaml("de: {stratgy: jso}\n", "f.yaml", c); },
      ThrowsMessage<ConfigError>(AllOf(HasSubstr("'f.yaml'"), HasSubstr("unknown key 'de.stratgy'"),
                                       HasSubstr("allowed here: strategy, population"))));
  EXPECT_THAT([&] { apply_run_config_yaml("seed: many\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("key 'seed': found 'many'")));
  EXPECT_THAT([&] { apply_run_config_yaml("de: {max_generations: 1.5}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("expected a whole number in [1, 1000000000]")));
  EXPECT_THAT([&] { apply_run_config_yaml("de: {max_generations: -1}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("found '-1', expected a whole number")));
  EXPECT_THAT([&] { apply_run_config_yaml("cost: {residual: mse}\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(HasSubstr("residual 'mse' is not one of")));
  EXPECT_THAT([&] { apply_run_config_yaml("threads: 0\n", "f.yaml", c); },
              ThrowsMessage<ConfigError>(
                  HasSubstr("key 'threads': found '0', expected a whole number in [1, 1024]")));
  fit::RunConfig empty;
  EXPECT_THAT([&] { empty.validate(); }, ThrowsMessage<ConfigError>(HasSubstr("--data")));
}

TEST(RunConfig, JsonNestsBySectionWithTypedValues) {
  fit::RunConfig c;
  const std::string j = run_config_to_json(c);
  EXPECT_THAT(j, HasSubstr("\"de\":{\"strategy\":\"lshade\""));
  EXPECT_THAT(j, HasSubstr("\"max_generations\":2000"));
  EXPECT_THAT(j, HasSubstr("\"target_cost\":\"-inf\""));
  EXPECT_THAT(j, HasSubstr("\"polish\":true"));
}

}  // namespace perfit::fit
