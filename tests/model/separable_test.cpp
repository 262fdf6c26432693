#include "perfit/model/separable.hpp"

#include <gtest/gtest.h>

#include "perfit/core/error.hpp"

namespace perfit::model {

namespace {

const std::vector<std::string> kColumns = {"p", "b", "d", "epochs", "time_s"};

Model make(const std::string& expr, std::vector<ParamSpec> params,
           std::vector<TermSpec> terms = {}) {
  ModelSpec s;
  s.name = "m";
  s.expression = expr;
  s.params = std::move(params);
  s.terms = std::move(terms);
  return Model(s, kColumns);
}

std::vector<std::string> names(const Model& m, const std::vector<std::size_t>& idx) {
  std::vector<std::string> out;
  for (const std::size_t i : idx) out.push_back(m.param_names()[i]);
  return out;
}

std::vector<bool> all(const Model& m) { return std::vector<bool>(m.n_params(), true); }

}  // namespace

TEST(Separable, GenericModelLeavesOnlyTheExponentToTheSearch) {
  const Model m = make("startup + compute + overhead + latency + bandwidth",
                       {{"c0", 0, 1000, false},
                        {"c1", 1e-6, 1, true},
                        {"g", 0.5, 1.2, false},
                        {"c2", 1e-6, 1, true},
                        {"c3", 1e-7, 1, true},
                        {"c4", 1e-6, 10, true}},
                       {{"iterations", "epochs*d/(b*p)"},
                        {"startup", "c0"},
                        {"compute", "iterations*c1*b^g"},
                        {"overhead", "iterations*c2"},
                        {"latency", "iterations*c3*log2(p)"},
                        {"bandwidth", "iterations*c4*(p-1)/p"}});
  const Separation s = separate(m, all(m));
  EXPECT_EQ(names(m, s.linear), (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4"}));
  EXPECT_EQ(names(m, s.nonlinear), (std::vector<std::string>{"g"}));
  EXPECT_EQ(s.basis.size(), 5u);
  EXPECT_FALSE(s.offset.has_value());
}

TEST(Separable, AProductOfTwoConstantsKeepsOneInTheSearchPreferringTheWideOne) {
  // amdahl: affine in t1 and affine in s, not in both; t1 spans ten decades.
  const Model amdahl = make("t1*s + t1*(1-s)/p", {{"t1", 1e-3, 1e7, true}, {"s", 0, 1, false}});
  const Separation a = separate(amdahl, all(amdahl));
  EXPECT_EQ(names(amdahl, a.linear), (std::vector<std::string>{"t1"}));
  EXPECT_EQ(names(amdahl, a.nonlinear), (std::vector<std::string>{"s"}));
  // usl: sigma and kappa are linear once t1 is fixed: two beat one.
  const Model usl =
      make("t1/p + t1*sigma*(p-1)/p + t1*kappa*(p-1)",
           {{"t1", 1e-3, 1e7, true}, {"sigma", 0, 1, false}, {"kappa", 0, 0.1, false}});
  const Separation u = separate(usl, all(usl));
  EXPECT_EQ(names(usl, u.linear), (std::vector<std::string>{"sigma", "kappa"}));
  ASSERT_TRUE(u.offset.has_value());  // t1/p
}

TEST(Separable, SplitsAreKeptPerModelAllowedParamsAndLogScaling) {
  // The same tapes, split again with other log-scaled or allowed params: each its own split
  // (splits are kept between fits; a kept one must not answer for another model).
  const std::string expr = "t1*s + t1*(1-s)/p";
  const Model wide_t1 = make(expr, {{"t1", 1e-3, 1e7, true}, {"s", 0, 1, false}});
  const Model wide_s = make(expr, {{"t1", 1, 2, false}, {"s", 1e-3, 1, true}});
  EXPECT_EQ(names(wide_t1, separate(wide_t1, all(wide_t1)).linear),
            (std::vector<std::string>{"t1"}));
  EXPECT_EQ(names(wide_s, separate(wide_s, all(wide_s)).linear), (std::vector<std::string>{"s"}));
  EXPECT_EQ(names(wide_t1, separate(wide_t1, {false, true}).linear),
            (std::vector<std::string>{"s"}));
  EXPECT_FALSE(separate(wide_t1, {false, false}).separable());
  EXPECT_EQ(names(wide_t1, separate(wide_t1, all(wide_t1)).linear),
            (std::vector<std::string>{"t1"}));
}

TEST(Separable, ConstantsInsideFunctionsPowersAndDenominatorsAreNonlinear) {
  const Model m = make("a + exp(k*p) + b^e + d/q + max(r, p) + z*(p - 1)", {{"a", 0, 1, false},
                                                                            {"k", 0, 1, false},
                                                                            {"e", 0, 1, false},
                                                                            {"q", 1, 2, false},
                                                                            {"r", 0, 1, false},
                                                                            {"z", -1, 1, false}});
  const Separation s = separate(m, all(m));
  EXPECT_EQ(names(m, s.linear), (std::vector<std::string>{"a", "z"}));
  EXPECT_EQ(names(m, s.nonlinear), (std::vector<std::string>{"k", "e", "q", "r"}));
}

TEST(Separable, AModelWithoutLinearConstantsOrWithThemDisallowedIsNotSeparable) {
  const Model m = make("exp(k*p) + b^e", {{"k", 0, 1, false}, {"e", 0, 1, false}});
  EXPECT_FALSE(separate(m, all(m)).separable());
  const Model lin = make("c0 + c1*p", {{"c0", 0, 1, false}, {"c1", 0, 1, false}});
  EXPECT_FALSE(separate(lin, {false, false}).separable());
  EXPECT_EQ(names(lin, separate(lin, {false, true}).linear), (std::vector<std::string>{"c1"}));
}

TEST(Separable, AllLinearLeavesNothingToSearch) {
  const Model m = make(
      "epochs*d/(b*p)*(f0 + f1*b + 2*(p-1)*alpha) - c",
      {{"f0", 0, 1, false}, {"f1", 1e-7, 1, true}, {"alpha", 1e-8, 0.1, true}, {"c", 0, 1, false}});
  const Separation s = separate(m, all(m));
  EXPECT_EQ(s.linear.size(), 4u);
  EXPECT_TRUE(s.nonlinear.empty());
}

TEST(Separable, ModeParsesAndNamesItsChoices) {
  EXPECT_EQ(parse_separable_mode("auto"), SeparableMode::automatic);
  EXPECT_EQ(parse_separable_mode("off"), SeparableMode::off);
  EXPECT_STREQ(to_string(SeparableMode::off), "off");
  EXPECT_THROW(parse_separable_mode("on"), ConfigError);
}

}  // namespace perfit::model
