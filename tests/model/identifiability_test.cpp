#include "perfit/model/identifiability.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/split_columns.hpp"

namespace perfit::model {

using ::testing::HasSubstr;
using ::testing::Not;

namespace {
data::MeasurementTable table(const std::vector<double>& p, const std::vector<double>& b) {
  data::MeasurementTable t;
  t.add_column(data::Column("p", p));
  t.add_column(data::Column("b", b));
  std::vector<double> y(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    y[i] = 1.0 + 0.01 * b[i] + 0.1 * std::log2(p[i]) + 0.2 / p[i];
  t.add_column(data::Column("time_s", y));
  t.attributes()["target"] = std::string("time_s");
  return t;
}
ModelSpec spec(const std::string& expr, std::size_t n) {
  ModelSpec s;
  s.name = "m";
  s.expression = expr;
  for (std::size_t k = 0; k < n; ++k)
    s.params.push_back({"c" + std::to_string(k), 0.01, 10, false});
  return s;
}
}  // namespace

TEST(Identifiability, WellPosedFitsGetNoWarning) {
  const auto t = table({1, 2, 4, 8, 16, 1, 2, 4}, {8, 8, 8, 8, 16, 32, 64, 128});
  const Model m(spec("c0 + c1*b + c2*log2(p)", 3), t.column_names());
  const Evaluator ev(m, t);
  const auto r = check_identifiability(ev, Eigen::Vector3d(1.0, 0.01, 0.1));
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(r.distinct_configurations, 8u);
}

TEST(Identifiability, AParamOnAConstantFactorHasNoEffect) {
  const auto t = table({1, 1, 1, 1}, {8, 16, 32, 64});
  const Model m(spec("c0 + c1*b + c2*log2(p)", 3), t.column_names());
  const Evaluator ev(m, t);
  const auto r = check_identifiability(ev, Eigen::Vector3d(1.0, 0.01, 0.1));
  EXPECT_EQ(r.identifiable, (std::vector<bool>{true, true, false}));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_THAT(r.warnings[0], HasSubstr("c2 have no effect"));
  EXPECT_THAT(r.warnings[0], HasSubstr("'p' (= 1) is constant"));
}

// The warning names the constant column that kills the param (p = 1 in log2(p)), not every
// constant column: epochs = 1 only scales a term, it cannot make one vanish.
TEST(Identifiability, OnlyTheConstantColumnThatCausesItIsNamed) {
  auto t = table({1, 1, 1, 1}, {8, 16, 32, 64});
  t.add_column(data::Column("epochs", std::vector<double>{1, 1, 1, 1}));
  const Model m(spec("c0 + c1*b*epochs + c2*log2(p)", 3), t.column_names());
  const Evaluator ev(m, t);
  const auto r = check_identifiability(ev, Eigen::Vector3d(1.0, 0.01, 0.1));
  EXPECT_EQ(r.identifiable, (std::vector<bool>{true, true, false}));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_THAT(r.warnings[0], HasSubstr("column 'p' (= 1) is constant"));
  EXPECT_THAT(r.warnings[0], Not(HasSubstr("epochs")));
}

TEST(Identifiability, ParamsThatTradeOffAndTooFewConfigurationsAreNamed) {
  const auto t = table({1, 2, 1, 2}, {8, 8, 8, 8});
  const Model m(spec("c0 + c1 + c2/p", 3), t.column_names());  // c0 and c1 only as a sum
  const Evaluator ev(m, t);
  const auto r = check_identifiability(ev, Eigen::Vector3d(0.5, 0.5, 0.2));
  EXPECT_EQ(r.distinct_configurations, 2u);
  EXPECT_EQ(r.identifiable, (std::vector<bool>{false, false, true}));
  EXPECT_THAT(r.warnings[0], HasSubstr("only 2 distinct configurations of (p) for 3 params"));
  EXPECT_THAT(r.warnings[1], HasSubstr("params c0, c1 trade off"));
}

// Groups whose params touch disjoint rows (a joint fit's) are checked group by group (J'J is
// block diagonal; 100 groups' 6x6 blocks instead of one 600x600 matrix): each group's trade-off
// is named on its own.
TEST(Identifiability, TradeOffsOfUnlinkedParamsAreNamedApart) {
  auto t = table({1, 2, 4, 8, 1, 2, 4, 8}, {8, 8, 8, 8, 8, 8, 8, 8});
  std::vector<double> g(8, 0.0);  // the first four rows are group 1's
  std::fill(g.begin(), g.begin() + 4, 1.0);
  t.add_column(data::Column("g", g));
  const Model m(spec("(c0 + c1 + c2/p)*g + (c3 + c4 + c5/p)*(1 - g)", 6), t.column_names());
  const Evaluator ev(m, t);
  Eigen::VectorXd x(6);
  x << 0.5, 0.5, 0.2, 0.4, 0.6, 0.3;
  const auto r = check_identifiability(ev, x);
  EXPECT_EQ(r.identifiable, (std::vector<bool>{false, false, true, false, false, true}));
  EXPECT_THAT(r.warnings, ::testing::UnorderedElementsAre(HasSubstr("params c0, c1 trade off"),
                                                          HasSubstr("params c3, c4 trade off")));
}

TEST(Identifiability, ProcessesSharingTheColumnsGiveTheSerialAnswer) {
  const auto t = table({1, 2, 1, 2, 4}, {8, 8, 8, 16, 16});
  const Model m(spec("c0 + c1 + c2/p + c3*b", 4), t.column_names());
  const Evaluator ev(m, t);
  const Eigen::Vector4d x(0.5, 0.5, 0.2, 0.01);
  const Identifiability serial = check_identifiability(ev, x);
  ASSERT_FALSE(serial.warnings.empty());
  for (const int parts : {2, 3}) {
    const auto split = testing_support::split_columns<Identifiability>(
        parts, [&](const ColumnSplit& c) { return check_identifiability(ev, x, {}, c); });
    for (const Identifiability& one : split) {
      EXPECT_EQ(one.identifiable, serial.identifiable) << parts;
      EXPECT_EQ(one.warnings, serial.warnings) << parts;
    }
  }
}

}  // namespace perfit::model
