#include "perfit/data/splits.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "perfit/core/error.hpp"

namespace perfit::data {

namespace {
// 12 configurations (p x b), each measured 3 times; a framework column of text.
MeasurementTable repeated_grid() {
  std::vector<double> p, b, t;
  std::vector<std::string> fw;
  const char* names[] = {"mxnet", "pytorch", "tensorflow"};
  int i = 0;
  for (double pv : {1.0, 2.0, 4.0, 8.0}) {
    for (double bv : {32.0, 64.0, 128.0}) {
      for (int rep = 0; rep < 3; ++rep, ++i) {
        p.push_back(pv);
        b.push_back(bv);
        t.push_back(100.0 / pv + bv + rep);
        fw.push_back(names[i % 3]);
      }
    }
  }
  MeasurementTable m;
  m.add_column(Column("p", p));
  m.add_column(Column("b", b));
  m.add_column(Column("time", t));
  m.add_column(Column("framework", fw));
  m.attributes()["target"] = std::string("time");
  return m;
}
}  // namespace

TEST(Splits, ParseAndTextRoundTrip) {
  for (const std::string text : {"kfold:5", "kfold:2", "group:framework", "group:framework:2",
                                 "scale:p", "scale:p:3", "forward:p"}) {
    EXPECT_EQ(parse_split(text).text(), text);
  }
  EXPECT_EQ(parse_split("kfold").k, 5u);
  EXPECT_EQ(parse_split("scale:n_accelerators").k, 1u);
  for (const std::string bad :
       {"", "kfold:1", "kfold:x", "scale:", "group:", "group:a:0", "group:a:b", "group:a:2:1",
        "loo", "scale:p:0", "forward:", "forward:p:2"}) {
    EXPECT_THROW(parse_split(bad), ConfigError) << bad;
  }
}

TEST(Splits, KfoldKeepsEachConfigurationInOneFoldAndCoversEveryRowOnce) {
  const MeasurementTable t = repeated_grid();
  const auto folds = make_folds(parse_split("kfold:5"), t, {"p", "b"}, 7);
  ASSERT_EQ(folds.size(), 5u);
  std::vector<int> tested(t.rows(), 0);
  std::map<std::pair<double, double>, std::set<std::size_t>> fold_of_config;
  std::size_t smallest = t.rows(), largest = 0;
  for (std::size_t f = 0; f < folds.size(); ++f) {
    smallest = std::min(smallest, folds[f].test_rows);
    largest = std::max(largest, folds[f].test_rows);
    EXPECT_EQ(folds[f].train_rows + folds[f].test_rows, t.rows());
    for (std::size_t i = 0; i < t.rows(); ++i) {
      EXPECT_NE(folds[f].train[i], folds[f].test[i]);
      if (folds[f].test[i]) {
        ++tested[i];
        fold_of_config[{t.column("p").f64()[i], t.column("b").f64()[i]}].insert(f);
      }
    }
  }
  for (int n : tested) EXPECT_EQ(n, 1);
  for (const auto& [config, fs] : fold_of_config) EXPECT_EQ(fs.size(), 1u);
  EXPECT_LE(largest - smallest, 3u);  // 12 configurations in 5 folds: 2 or 3 each, 3 rows apiece
  // Seeded: the same seed gives the same folds, another seed other folds.
  EXPECT_EQ(make_folds(parse_split("kfold:5"), t, {"p", "b"}, 7)[0].test, folds[0].test);
  bool differs = false;
  for (std::size_t f = 0; f < 5; ++f)
    differs |= make_folds(parse_split("kfold:5"), t, {"p", "b"}, 8)[f].test != folds[f].test;
  EXPECT_TRUE(differs);
  EXPECT_THROW(make_folds(parse_split("kfold:13"), t, {"p", "b"}, 7), DataError);
}

TEST(Splits, GroupHoldsOutOneValueAtATime) {
  const MeasurementTable t = repeated_grid();
  const auto folds = make_folds(parse_split("group:framework"), t, {"p", "b"}, 1);
  ASSERT_EQ(folds.size(), 3u);
  EXPECT_EQ(folds[1].name, "framework=pytorch");
  for (std::size_t i = 0; i < t.rows(); ++i)
    EXPECT_EQ(folds[1].test[i], t.column("framework").str()[i] == "pytorch");
  const auto by_p = make_folds(parse_split("group:p"), t, {"p", "b"}, 1);
  ASSERT_EQ(by_p.size(), 4u);
  EXPECT_EQ(by_p[3].name, "p=8");
  EXPECT_EQ(by_p[3].test_rows, 9u);
  EXPECT_THROW(make_folds(parse_split("group:missing"), t, {"p"}, 1), DataError);
}

TEST(Splits, GroupGivenKTrainsOnTheHeldOutGroupsKSmallestScales) {
  const MeasurementTable t = repeated_grid();
  SplitSpec spec = parse_split("group:framework:2");
  EXPECT_EQ(spec.given, 2u);
  spec.scale = "p";
  const auto folds = make_folds(spec, t, {"p", "b"}, 1);
  ASSERT_EQ(folds.size(), 3u);
  EXPECT_EQ(folds[1].name, "framework=pytorch given p<=2");
  const auto& fw = t.column("framework").str();
  const auto& p = t.column("p").f64();
  for (std::size_t i = 0; i < t.rows(); ++i) {
    EXPECT_EQ(folds[1].test[i], fw[i] == "pytorch" && p[i] > 2) << i;
    EXPECT_EQ(folds[1].train[i], !folds[1].test[i]) << i;
  }
  // Measured at 4 values of p: given 4 of them, no group has anything left to predict.
  spec.given = 4;
  EXPECT_THROW(make_folds(spec, t, {"p", "b"}, 1), DataError);
  spec.given = 1;
  spec.scale = "framework";  // text: no scale
  EXPECT_THROW(make_folds(spec, t, {"p", "b"}, 1), DataError);
}

TEST(Splits, ScaleTrainsBelowTheLargestValuesAndPredictsThem) {
  const MeasurementTable t = repeated_grid();
  const auto one = make_folds(parse_split("scale:p"), t, {"p", "b"}, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "p>=8");
  EXPECT_EQ(one[0].test_rows, 9u);
  const auto two = make_folds(parse_split("scale:p:2"), t, {"p", "b"}, 1);
  EXPECT_EQ(two[0].test_rows, 18u);
  for (std::size_t i = 0; i < t.rows(); ++i)
    EXPECT_EQ(two[0].test[i], t.column("p").f64()[i] >= 4.0);
  // 4 values: holding out 3 leaves 1 to train on.
  EXPECT_THROW(make_folds(parse_split("scale:p:3"), t, {"p"}, 1), DataError);
  EXPECT_THROW(make_folds(parse_split("scale:framework"), t, {"p"}, 1), DataError);
  const MeasurementTable kept = select_rows(t, one[0].train);
  EXPECT_EQ(kept.rows(), 27u);
  EXPECT_EQ(kept.target(), "time");
}

TEST(Splits, ForwardPredictsEachScaleFromTheSmallerOnes) {
  const MeasurementTable t = repeated_grid();
  const auto folds = make_folds(parse_split("forward:p"), t, {"p", "b"}, 1);
  ASSERT_EQ(folds.size(), 2u);  // p = 4 from 1, 2; p = 8 from 1, 2, 4
  EXPECT_EQ(folds[1].name, "p=8");
  EXPECT_EQ(folds[1].test_rows, 9u);
  EXPECT_EQ(folds[1].train_rows, 27u);
  EXPECT_EQ(folds[0].train_rows, 18u);
  for (std::size_t i = 0; i < t.rows(); ++i) {
    EXPECT_EQ(folds[0].train[i], t.column("p").f64()[i] < 4.0);
    EXPECT_EQ(folds[0].test[i], t.column("p").f64()[i] == 4.0);
  }
  EXPECT_THROW(make_folds(parse_split("forward:framework"), t, {"p"}, 1), DataError);
}

}  // namespace perfit::data
