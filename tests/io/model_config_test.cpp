#include "perfit/io/model_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perfit/core/error.hpp"
#include "perfit/data/synth.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/separable.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ModelConfig, CatalogueHasTheDocumentedModelsAndAllCompile) {
  std::vector<std::string> names;
  for (const auto& m : builtin_models()) names.push_back(m.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"generic", "amdahl", "gustafson", "usl", "power", "iteration",
                                      "iteration_tree", "iteration_overlap", "pmnf"}));
  const std::vector<std::string> cols = {"p", "nodes", "b", "d", "epochs", "time_s"};
  for (const auto& m : builtin_models()) EXPECT_NO_THROW(model::Model(m, cols)) << m.name;
}

// What variable projection leaves to the search for each built-in model (README lists it).
TEST(ModelConfig, BuiltinModelsSeparateAsDocumented) {
  const std::vector<std::string> cols = {"p", "b", "d", "epochs", "time_s"};
  auto searched = [&](const std::string& name) {
    const model::Model m(load_model(name), cols);
    const model::Separation s = model::separate(m, std::vector<bool>(m.n_params(), true));
    std::vector<std::string> out;
    for (const std::size_t i : s.nonlinear) out.push_back(m.param_names()[i]);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(searched("generic"), (V{"g"}));
  EXPECT_EQ(searched("amdahl"), (V{"s"}));
  EXPECT_EQ(searched("usl"), (V{"t1"}));
  EXPECT_EQ(searched("gustafson"), (V{}));
  EXPECT_EQ(searched("power"), (V{"a"}));
  EXPECT_EQ(searched("pmnf"), (V{"i1", "j1", "i2", "j2"}));
  EXPECT_EQ(searched("iteration"), (V{}));
  EXPECT_EQ(searched("iteration_tree"), (V{}));
  EXPECT_EQ(searched("iteration_overlap"), (V{"k0", "k1", "alpha", "beta"}));
}

TEST(ModelConfig, BuiltinGenericIsTheSynthTruthFormula) {
  data::SynthOptions o;
  o.rows = 5000;
  o.noise = 0;
  const auto spec = data::synth_catalogue()[1];
  data::SynthGenerator g(spec, o, 1);
  const data::MeasurementTable t = [&] {
    auto c = g.next_chunk(o.rows);
    c.attributes() = g.attributes();
    return c;
  }();
  const model::Model m(load_model("generic"), t.column_names());
  const model::Evaluator ev(m, t);
  const auto& tr = spec.truth;
  Eigen::VectorXd x(6);
  x << tr.c0, tr.c1, tr.g, tr.c2, tr.c3, tr.c4;
  EXPECT_EQ(m.param_names(), (std::vector<std::string>{"c0", "c1", "g", "c2", "c3", "c4"}));
  const Eigen::VectorXd pred = ev.predict(x);
  for (Eigen::Index i = 0; i < pred.size(); ++i) {
    ASSERT_NEAR(pred(i), t.column("time_s").f64()[i], 1e-12 * pred(i)) << i;
  }
  EXPECT_LT(ev.cost(x), 1e-24);
  EXPECT_EQ(m.term_names(),
            (std::vector<std::string>{"startup", "compute", "overhead", "latency", "bandwidth"}));
}

TEST(ModelConfig, YamlWithTermsConstantsAndLogBounds) {
  const auto m = parse_model_yaml(R"y(
name: my_model
expression: "c0 + c1*d/p + (d/(p*b))*(c2 + c3*log2(p))"
params: {c0: [0, 100], c1: [1e-9, 1e-1, log], c2: [0, 10], c3: {min: 0, max: 1}}
constants: {M: 1e8}
)y",
                                  "inline");
  EXPECT_EQ(m.params.size(), 4u);
  EXPECT_TRUE(m.params[1].log_scale);
  EXPECT_EQ(m.params[3].hi, 1.0);
  EXPECT_EQ(m.constants.front().second, 1e8);
}

TEST(ModelConfig, WrittenTextIsOneBlockMapThatReadsBackWhateverWasWrittenBefore) {
  const char* text = R"y(
name: my_model
description: a model, with a comma
expression: "c0 + t"
factors: [p, d]
terms: {t: "c1*d/p"}
constants: {M: 1e8}
params: {c0: [0, 100], c1: [1e-9, 0.1, log]}
)y";
  model::ModelSpec a = parse_model_yaml(text, "inline");
  const std::string first = model_to_yaml(a);
  EXPECT_EQ(first,
            "name: my_model\ndescription: a model, with a comma\nexpression: \"c0 + t\"\nfactors: "
            "[p, d]\n"
            "terms:\n  t: \"c1*d/p\"\nconstants:\n  M: 100000000\nparams:\n  c0: [0, 100]\n"
            "  c1: [1.0000000000000001e-09, 0.10000000000000001, log]");
  // The same model with other numbers (a fit of another set): its own numbers, the same head.
  model::ModelSpec b = a;
  b.params[0].hi = 50.0;
  b.constants.front().second = 2.5;
  const model::ModelSpec back = parse_model_yaml(model_to_yaml(b), "written");
  EXPECT_EQ(back.params[0].hi, 50.0);
  EXPECT_EQ(back.constants.front().second, 2.5);
  EXPECT_EQ(back.terms.front().expression, "c1*d/p");
  EXPECT_EQ(model_to_yaml(a), first);
  // Another head with the same numbers is not taken for the first.
  b = a;
  b.description = "another";
  EXPECT_EQ(parse_model_yaml(model_to_yaml(b), "written").description, "another");
}

// The numbers are written without yaml-cpp's emitter where every name is a plain key; the
// expected texts are yaml-cpp 0.7's own (precision 17), and a key it quotes takes the emitter.
TEST(ModelConfig, NumbersReadAsTheEmitterWritesThem) {
  const auto numbers = [](const model::ModelSpec& m) {
    const std::string text = model_to_yaml(m);
    const auto at = text.find(m.constants.empty() ? "\nparams:" : "\nconstants:");
    return at == std::string::npos ? text : text.substr(at + 1);
  };
  model::ModelSpec m;
  m.name = "naive";
  m.expression = "t_last*x_last";
  m.constants = {{"t_last", 12.5}, {"x_last", 64}, {"slope", -0.93999999999999995}};
  EXPECT_EQ(
      numbers(m),
      "constants:\n  t_last: 12.5\n  x_last: 64\n  slope: -0.93999999999999995\nparams:\n  {}");
  m.constants = {};
  m.params = {{"c0", -0.0, 1e300, false},
              {"c1", 4.9406564584124654e-324, 1e-320, false},
              {"s", 0.1, 1e22, true},
              {"Yes_1", -124.23645999999999, 124.23645999999999, false}};
  EXPECT_EQ(numbers(m),
            "params:\n  c0: [-0, 1.0000000000000001e+300]\n  c1: [4.9406564584124654e-324, "
            "9.9998886718268301e-321]\n  s: [0.10000000000000001, 1e+22, log]\n"
            "  Yes_1: [-124.23645999999999, 124.23645999999999]");
  m.constants = {{"inf_c", std::numeric_limits<double>::infinity()},
                 {"m", -std::numeric_limits<double>::infinity()}};
  m.params = {{"c0", 1, 2, false}};
  EXPECT_EQ(numbers(m), "constants:\n  inf_c: .inf\n  m: -.inf\nparams:\n  c0: [1, 2]");
  m.constants = {{"yes", 1}};
  m.params = {{"null", 1, 2, false}, {"on", 1, 2, false}};
  EXPECT_EQ(numbers(m), "constants:\n  yes: 1\nparams:\n  \"null\": [1, 2]\n  on: [1, 2]");
}

TEST(ModelConfig, ErrorsNameTheFileAndKey) {
  EXPECT_THAT([] { parse_model_yaml("name: x\nexpression: c0\nparams: {c0: [1]}\n", "f.yaml"); },
              ThrowsMessage<ConfigError>(
                  HasSubstr("'f.yaml' param 'c0' has 1 entries; expected [lo, hi]")));
  EXPECT_THAT([] { parse_model_yaml("name: x\nexpression: c0\nparams: {c0: 5}\n", "f.yaml"); },
              ThrowsMessage<ConfigError>(HasSubstr("param 'c0' has no bounds")));
  EXPECT_THAT(
      [] { parse_model_yaml("name: x\nexpression: c0\nparams: {c0: [0, 1, sqrt]}\n", "f.yaml"); },
      ThrowsMessage<ConfigError>(HasSubstr("third entry 'sqrt' should be 'log'")));
  EXPECT_THAT([] { parse_model_yaml("name: x\nexpresion: c0\n", "f.yaml"); },
              ThrowsMessage<ConfigError>(HasSubstr("unknown key 'expresion'")));
  EXPECT_THAT(
      [] { parse_model_yaml("name: x\nexpression: c0\nparams: {c0: [0, abc]}\n", "f.yaml"); },
      ThrowsMessage<ConfigError>(HasSubstr("upper bound: expected a number, found 'abc'")));
  EXPECT_THAT([] { parse_model_yaml("name: [x\n", "f.yaml"); },
              ThrowsMessage<ConfigError>(HasSubstr("'f.yaml': YAML error at line")));
  EXPECT_THAT(
      [] { parse_model_yaml("name: x\nexpression: c0 +\nparams: {c0: [0, 1]}\n", "f.yaml"); },
      ThrowsMessage<ConfigError>(HasSubstr("syntax error")));
}

TEST(ModelConfig, LoadModelTakesANameOrAPath) {
  testing_support::TempDir dir;
  const auto path = dir.write("m.yaml", "name: mine\nexpression: a*p\nparams: {a: [0, 1]}\n");
  EXPECT_EQ(load_model(path).name, "mine");
  EXPECT_EQ(load_model("usl").name, "usl");
  EXPECT_THAT([] { load_model("gpt"); },
              ThrowsMessage<ConfigError>(HasSubstr("neither a built-in model (generic, amdahl")));
}

}  // namespace perfit::io
