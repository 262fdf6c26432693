#include "perfit/model/grouped_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfit/core/error.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/model/evaluator.hpp"
#include "perfit/model/separable.hpp"

namespace perfit::model {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

ModelSpec two_constant_model() {
  ModelSpec m;
  m.name = "t";
  m.expression = "c0 + c1*d/p^g";
  m.params = {{"c0", 0, 10, false}, {"c1", 1e-6, 1, true}, {"g", 0.5, 1.5, false}};
  m.terms = {};
  return m;
}

// Each list names its constants; the rest are pooled (all of them when no list is given).
TEST(GroupedModel, KindsFromTheListsTheRestPooled) {
  const ModelSpec m = two_constant_model();
  const ConstantKinds a = constant_kinds(m, {"c0"}, {});
  EXPECT_EQ(a.shared, std::vector<std::string>{"c0"});
  EXPECT_EQ(a.pooled, (std::vector<std::string>{"c1", "g"}));
  const ConstantKinds b = constant_kinds(m, {}, {"g"}, {"c1"});
  EXPECT_EQ(b.per_group, std::vector<std::string>{"g"});
  EXPECT_EQ(b.pooled, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(constant_kinds(m, {}, {}).pooled.size(), 3u);
  EXPECT_THAT([&] { constant_kinds(m, {"c0"}, {"c0"}); },
              ThrowsMessage<ConfigError>(HasSubstr("'c0' is named both --shared and --per-group")));
  EXPECT_THAT([&] { constant_kinds(m, {}, {"g"}, {"g"}); },
              ThrowsMessage<ConfigError>(HasSubstr("'g' is named both --per-group and --pooled")));
  EXPECT_THAT([&] { constant_kinds(m, {"c9"}, {}); },
              ThrowsMessage<ConfigError>(HasSubstr(
                  "'c9' (in --shared) is not a constant of model 't'; its constants: c0, c1, g")));
}

// The pooling term is strength x sum_g ((x_g - mean)/scale)^2, in the cost and in the residual
// vector (whose squares sum to the cost) alike.
TEST(GroupedModel, PooledCopiesAreDrawnTowardTheirMean) {
  const ModelSpec m = expand_for_groups(two_constant_model(), 2, {}, {{"c0", 0.5, 2.0}});
  ASSERT_EQ(m.pools.size(), 1u);
  EXPECT_EQ(m.pools[0].params, (std::vector<std::string>{"c0__1", "c0__2"}));
  data::MeasurementTable t;
  t.add_column(data::Column("p", std::vector<double>{2, 2}));
  t.add_column(data::Column("d", std::vector<double>{100, 100}));
  t.add_column(data::Column("_group1", std::vector<double>{1, 0}));
  t.add_column(data::Column("_group2", std::vector<double>{0, 1}));
  t.add_column(data::Column("time", std::vector<double>{10, 10}));
  t.attributes()["target"] = std::string("time");
  const Model model(m, t.column_names());
  Eigen::VectorXd x(4);
  x << 1.0, 3.0, 0.1, 1.0;  // c0__1, c0__2, c1, g: mean 2, deviations +-1
  EXPECT_DOUBLE_EQ(model.pooling(x), 0.5 * 2.0 / 4.0);
  const Evaluator ev(model, t, CostOptions{});
  const Eigen::VectorXd r = ev.residual_vector(x);
  EXPECT_NEAR(r.squaredNorm(), ev.cost(x), 1e-12);
  EXPECT_NEAR(ev.cost(x) - model.pooling(x),
              0.5 * (std::pow(6.0 / 10 - 1, 2) + std::pow(8.0 / 10 - 1, 2)), 1e-12);
}

TEST(GroupedModel, ParamNamesRoundTrip) {
  EXPECT_EQ(group_param("c1", 12), "c1__12");
  EXPECT_EQ(split_group_param("c1__12"), (std::pair<std::string, std::size_t>{"c1", 12}));
  EXPECT_EQ(split_group_param("c1"), (std::pair<std::string, std::size_t>{"c1", 0}));
  EXPECT_EQ(split_group_param("a__b"), (std::pair<std::string, std::size_t>{"a__b", 0}));
  EXPECT_TRUE(is_group_indicator("_group3"));
  EXPECT_FALSE(is_group_indicator("_groups"));
  EXPECT_FALSE(is_group_indicator("_group"));
}

// Each group's rows see its own per-group values and the shared ones, and constants that were
// linear stay linear (solved by least squares per candidate).
TEST(GroupedModel, EachGroupSeesItsOwnConstants) {
  const ModelSpec m = expand_for_groups(two_constant_model(), 2, {"c1", "g"});
  ASSERT_EQ(m.params.size(), 5u);
  EXPECT_EQ(m.params[1].name, "c1__1");
  EXPECT_EQ(m.params[4].name, "g__2");
  EXPECT_TRUE(m.params[2].log_scale);
  data::MeasurementTable t;
  t.add_column(data::Column("p", std::vector<double>{2, 2}));
  t.add_column(data::Column("d", std::vector<double>{100, 100}));
  t.add_column(data::Column("_group1", std::vector<double>{1, 0}));
  t.add_column(data::Column("_group2", std::vector<double>{0, 1}));
  const Model model(m, t.column_names());
  const Evaluator ev(model, t);
  Eigen::VectorXd x(5);
  x << 1.0, 0.1, 0.2, 1.0, 0.5;  // c0, c1__1, c1__2, g__1, g__2
  const Eigen::VectorXd y = ev.predict(x);
  EXPECT_DOUBLE_EQ(y(0), 1.0 + 0.1 * 100 / 2.0);
  EXPECT_DOUBLE_EQ(y(1), 1.0 + 0.2 * 100 / std::sqrt(2.0));
  const Separation sep = separate(model, std::vector<bool>(5, true));
  EXPECT_EQ(sep.linear, (std::vector<std::size_t>{0, 1, 2}));
}

// Past 64 params (40 groups of 3 constants) every copy of a linear constant is still found
// linear and every exponent searched: the split is not limited to a 64-bit set.
TEST(GroupedModel, ManyGroupsKeepTheirLinearConstantsLinear) {
  const std::size_t groups = 40;
  const ModelSpec m = expand_for_groups(two_constant_model(), groups, {"c0", "c1", "g"});
  std::vector<std::string> columns{"p", "d"};
  for (std::size_t g = 1; g <= groups; ++g) columns.push_back(group_indicator(g));
  const Model model(m, columns);
  ASSERT_EQ(model.n_params(), 3 * groups);
  const Separation sep = separate(model, std::vector<bool>(model.n_params(), true));
  ASSERT_EQ(sep.linear.size(), 2 * groups);
  for (const std::size_t i : sep.linear)
    EXPECT_NE(split_group_param(model.param_names()[i]).first, "g");
  for (const std::size_t i : sep.nonlinear)
    EXPECT_EQ(split_group_param(model.param_names()[i]).first, "g");
}

TEST(GroupedModel, RefusesNamesItNeeds) {
  ModelSpec m = two_constant_model();
  m.params.push_back({"c1__2", 0, 1, false});
  m.expression += " + c1__2";
  EXPECT_THAT([&] { expand_for_groups(m, 2, {"c1"}); },
              ThrowsMessage<ConfigError>(HasSubstr("already has a name 'c1__2'")));
}

}  // namespace perfit::model
