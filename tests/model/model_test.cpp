#include "perfit/model/model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::model {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ModelSpec spec(const std::string& expr,
               std::vector<ParamSpec> params = {{"c0", 0, 10, false}, {"c1", 1e-9, 1, true}}) {
  ModelSpec m;
  m.name = "t";
  m.expression = expr;
  m.params = std::move(params);
  return m;
}

// A model of constants only (a naive predictor, a published model) is evaluated, not fitted.
TEST(ModelSpec, ConstantsOnlyIsAModel) {
  ModelSpec s = spec("t_last * x_last / p", {});
  s.constants = {{"t_last", 10.0}, {"x_last", 8.0}};
  EXPECT_NO_THROW(s.validate());
  const Model m(s, {"p"});
  EXPECT_EQ(m.n_params(), 0u);
  EXPECT_EQ(Model::factors(s), std::vector<std::string>{"p"});
}

TEST(ModelSpec, BadBoundsNameTheParam) {
  EXPECT_THAT(
      [] {
        spec("c0", {{"c0", 5, 1, false}}).validate();
      },
      ThrowsMessage<ConfigError>(HasSubstr("param 'c0' has bounds [5, 1]: lo must be below hi")));
  EXPECT_THAT(
      [] {
        spec("c0", {{"c0", 0, 1, true}}).validate();
      },
      ThrowsMessage<ConfigError>(
          HasSubstr("param 'c0' is log-scaled but its lower bound 0 is <= 0")));
  EXPECT_THAT(
      [] {
        spec("c0", {{"c0", 2, 2, false}}).validate();
      },
      ThrowsMessage<ConfigError>(HasSubstr("use 'constants:'")));
  EXPECT_THAT(
      [] {
        spec("c0", {{"c0", 0, INFINITY, false}}).validate();
      },
      ThrowsMessage<ConfigError>(HasSubstr("non-finite bounds")));
  EXPECT_THAT(
      [] {
        spec("c0", {{"c0", 0, 1, false}, {"c0", 0, 1, false}}).validate();
      },
      ThrowsMessage<ConfigError>(HasSubstr("name 'c0' is declared twice")));
}

// Models are compiled once per expression and columns (a selection fits thousands of winners
// of a few dozen hypotheses): what is kept must never carry one spec's bounds, words, constants
// or columns into another's model, nor let through bounds that validate() refuses.
TEST(Model, CompiledTapesAreSharedButEachSpecKeepsItsOwnBoundsAndConstants) {
  data::MeasurementTable rows;
  rows.add_column(data::Column("p", std::vector<double>{1, 2, 4}));
  rows.add_column(data::Column("q", std::vector<double>{3, 5, 7}));
  rows.add_column(data::Column("t", std::vector<double>{1, 1, 1}));
  rows.attributes()["target"] = std::string("t");
  ModelSpec a = spec("c0 + c1*p*k", {{"c0", 0, 10, false}, {"c1", 1e-9, 1, true}});
  a.constants = {{"k", 2.0}};
  ModelSpec b = a;
  b.name = "u";
  b.params = {{"c0", -5, 5, false}, {"c1", 1e-6, 100, true}};
  const Model ma(a, {"p", "t"}), mb(b, {"p", "t"});
  EXPECT_EQ(mb.spec().name, "u");
  EXPECT_EQ(mb.spec().params[0].lo, -5.0);
  EXPECT_NEAR(mb.from_unit(1, 1.0), 100.0, 1e-9);
  EXPECT_NEAR(ma.from_unit(1, 1.0), 1.0, 1e-12);
  const Eigen::Vector2d x(1.0, 0.5);
  EXPECT_EQ(Evaluator(mb, rows).predict(x), Evaluator(ma, rows).predict(x));
  ModelSpec k3 = a;
  k3.constants = {{"k", 3.0}};  // another constant: another tape
  EXPECT_DOUBLE_EQ(Evaluator(Model(k3, {"p", "t"}), rows).predict(x)(2), 1.0 + 0.5 * 4 * 3);
  ModelSpec on_q = a;
  on_q.expression = "c0 + c1*q*k";  // other columns: their own tape
  EXPECT_DOUBLE_EQ(Evaluator(Model(on_q, {"p", "q", "t"}), rows).predict(x)(2), 1.0 + 0.5 * 7 * 2);
  ModelSpec bad = a;
  bad.params[1] = {"c1", 0, 1, true};
  EXPECT_THAT(
      [&] {
        Model(bad, {"p", "t"});
      },
      ThrowsMessage<ConfigError>(HasSubstr("param 'c1' is log-scaled")));
  bad.params[1] = {"c1", 2, 1, false};
  EXPECT_THAT(
      [&] {
        Model(bad, {"p", "t"});
      },
      ThrowsMessage<ConfigError>(HasSubstr("lo must be below hi")));
  bad.params[1] = {"c1", 0, 1, false};
  bad.name.clear();
  EXPECT_THAT(
      [&] {
        Model(bad, {"p", "t"});
      },
      ThrowsMessage<ConfigError>(HasSubstr("a model needs a 'name'")));
}

TEST(Model, UnknownIdentifierListsColumnsAndParams) {
  EXPECT_THAT(
      [] {
        Model(spec("c0 + c1*q"), {"p", "b", "time_s"});
      },
      ThrowsMessage<ConfigError>(AllOf(HasSubstr("unknown identifier 'q'"),
                                       HasSubstr("columns: p, b, time_s"),
                                       HasSubstr("terms: c0, c1"))));
}

TEST(Model, ParamShadowingAColumnIsRejected) {
  EXPECT_THAT(
      [] {
        Model(spec("c0*p", {{"p", 0, 1, false}, {"c0", 0, 1, false}}), {"p"});
      },
      ThrowsMessage<ConfigError>(HasSubstr("param 'p' has the name of a column")));
}

TEST(Model, SelfReferentialTermsAreRejected) {
  ModelSpec m = spec("c0 + a");
  m.terms = {{"a", "c1*b2"}, {"b2", "a*2"}};
  EXPECT_THAT([&] { Model(m, {"p"}); }, ThrowsMessage<ConfigError>(HasSubstr("refers to itself")));
}

TEST(Model, TermsKeepTheirNamesAndColumnsAreOnlyThoseUsed) {
  ModelSpec m = spec("startup + compute - c1");
  m.terms = {{"startup", "c0"}, {"compute", "c1*d/p"}};
  const Model model(m, {"p", "b", "d", "time_s"});
  EXPECT_EQ(model.term_names(), (std::vector<std::string>{"startup", "compute", "-c1"}));
  EXPECT_EQ(model.columns_used(), (std::vector<std::string>{"d", "p"}));
  EXPECT_EQ(model.term_tapes().size(), 3u);
}

TEST(Model, ATermWithoutANameIsCalledByWhatItComputes) {
  // A searched hypothesis has no named terms: its table says which term is which.
  const Model model(spec("c0 + c1*p^(1/2)*log2(p)^2 - c1/p"), {"p", "time_s"});
  EXPECT_EQ(model.term_names(),
            (std::vector<std::string>{"c0", "c1*p^(1/2)*log2(p)^2", "-(c1/p)"}));
}

TEST(Model, UnitCubeMappingIsLogAware) {
  const Model model(spec("c0 + c1"), {});
  EXPECT_DOUBLE_EQ(model.from_unit(0, 0.25), 2.5);
  EXPECT_NEAR(model.from_unit(1, 0.5), 1e-9 * std::sqrt(1e9), 1e-18);
  EXPECT_NEAR(model.to_unit(1, model.from_unit(1, 0.3)), 0.3, 1e-12);
}

TEST(ModelSpec, AConstantModelIsConstantInTheFactorsItDeclares) {
  ModelSpec s;
  s.name = "flat";
  s.expression = "c0";
  s.params = {{"c0", 0, 10, false}};
  s.factors = {"p", "n"};
  EXPECT_NO_THROW(s.validate());  // Extra-P's constant hypothesis over p and n
  EXPECT_EQ(Model::factors(s), (std::vector<std::string>{"p", "n"}));
  s.expression = "c0*p";  // reads p: n declared and unused is a typo again
  EXPECT_THAT([&] { s.validate(); },
              ThrowsMessage<ConfigError>(HasSubstr("factor 'n' is declared but never used")));
}

TEST(ModelSpec, AParamOrTermNothingUsesAndTermCyclesAreRejected) {
  ModelSpec s;
  s.name = "m";
  s.expression = "c0 + c1*p";
  s.params = {{"c0", 0, 1, false}, {"c1", 0, 1, false}, {"c2", 0, 1, false}};
  EXPECT_THAT([&] { s.validate(); },
              ThrowsMessage<ConfigError>(HasSubstr("param 'c2' is never used")));
  s.params.pop_back();
  s.terms = {{"extra", "c0*b"}};
  EXPECT_THAT([&] { s.validate(); },
              ThrowsMessage<ConfigError>(HasSubstr("term 'extra' is never used")));
  s.expression = "a + c1*p";
  s.terms = {{"a", "b2 + c0"}, {"b2", "a*2"}};
  EXPECT_THAT([&] { s.validate(); },
              ThrowsMessage<ConfigError>(HasSubstr("term 'a' refers to itself (a -> b2 -> a)")));
  s.terms = {{"a", "c0*x + c0"}};  // a term used twice is not a cycle
  s.expression = "a + a*c1";
  EXPECT_NO_THROW(s.validate());
}

}  // namespace perfit::model
