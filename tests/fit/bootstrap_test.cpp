#include "perfit/fit/bootstrap.hpp"

#include <gtest/gtest.h>

#include "perfit/io/model_config.hpp"
#include "support/synth_rows.hpp"

namespace perfit::fit {

namespace {
FitProblem generic_problem(const data::MeasurementTable& t, std::size_t refits) {
  FitProblem p;
  p.rows = std::make_shared<const data::MeasurementTable>(t);
  p.model = std::make_shared<const model::Model>(io::load_model("generic"), t.column_names());
  p.bootstrap = refits;
  p.ci = 0.9;
  p.quiet = true;
  return p;
}
}  // namespace

TEST(Bootstrap, PercentileIntervalInterpolatesBetweenOrderStatistics) {
  std::vector<double> v;
  for (int i = 100; i >= 0; --i) v.push_back(i);  // 0..100, unsorted
  const auto [lo, hi] = percentile_interval(v, 0.9);
  EXPECT_DOUBLE_EQ(lo, 5.0);
  EXPECT_DOUBLE_EQ(hi, 95.0);
  const auto [a, b] = percentile_interval({1.0, 2.0}, 0.5);
  EXPECT_DOUBLE_EQ(a, 1.25);
  EXPECT_DOUBLE_EQ(b, 1.75);
  EXPECT_EQ(percentile_interval({3.0}, 0.95), (std::pair{3.0, 3.0}));
}

TEST(Bootstrap, SameSeedSameReplicatesAndIntervalsAroundTheFit) {
  const data::MeasurementTable t = testing_support::synth_set(1, 600, 0.05, 4);
  const FitReport a = fit(generic_problem(t, 20), {}, {}, island::serial_layout());
  const FitReport b = fit(generic_problem(t, 20), {}, {}, island::serial_layout());
  ASSERT_EQ(a.bootstrap.requested, 20u);
  ASSERT_EQ(a.bootstrap.replicates.rows(), 20);
  ASSERT_EQ(a.bootstrap.replicates.cols(), 6);
  EXPECT_EQ(a.bootstrap.replicates, b.bootstrap.replicates);
  for (Eigen::Index k = 0; k < 6; ++k) {
    EXPECT_LT(a.bootstrap.lo(k), a.bootstrap.hi(k)) << k;
    // The fit's own constant lies inside (or at worst just outside) its 90% interval.
    const double width = a.bootstrap.hi(k) - a.bootstrap.lo(k);
    EXPECT_GT(a.params(k), a.bootstrap.lo(k) - width) << k;
    EXPECT_LT(a.params(k), a.bootstrap.hi(k) + width) << k;
  }
  // Replicates differ from each other: rows were resampled.
  EXPECT_GT((a.bootstrap.replicates.row(0) - a.bootstrap.replicates.row(1)).norm(), 0.0);
  FitProblem other = generic_problem(t, 20);
  de::FitOptions o;
  o.de.seed = 2;
  EXPECT_NE(fit(other, o, {}, island::serial_layout()).bootstrap.replicates,
            a.bootstrap.replicates);
}

TEST(Bootstrap, ResamplesConfigurationsWhenTheyRepeatElseRows) {
  data::MeasurementTable t = testing_support::synth_set(1, 300, 0.05, 4);
  EXPECT_EQ(fit(generic_problem(t, 5), {}, {}, island::serial_layout()).bootstrap.resampled,
            "configuration");
  // Every row its own configuration: a distinct epochs value per row.
  std::vector<double> epochs(t.rows());
  for (std::size_t i = 0; i < epochs.size(); ++i) epochs[i] = 1.0 + 1e-6 * static_cast<double>(i);
  t.columns()[4] = data::Column("epochs", epochs);
  ASSERT_EQ(t.columns()[4].name(), "epochs");
  EXPECT_EQ(fit(generic_problem(t, 5), {}, {}, island::serial_layout()).bootstrap.resampled, "row");
}

TEST(Bootstrap, PredictionIntervalHoldsTheReplicatesSpread) {
  data::MeasurementTable at;
  at.add_column(data::Column("p", std::vector<double>{1, 64, 1024}));
  at.add_column(data::Column("b", std::vector<double>{32, 256, 1024}));
  at.add_column(data::Column("d", std::vector<double>{1e5, 1e6, 1e6}));
  at.add_column(data::Column("epochs", std::vector<double>{1, 1, 1}));
  const model::Model m(io::load_model("generic"), at.column_names());
  const model::Evaluator ev(m, at);
  // Two refits that differ only in the start-up constant c0: the interval spans c0's range.
  const std::vector<std::vector<double>> reps = {{10, 20},     {1e-3, 1e-3}, {0.9, 0.9},
                                                 {1e-3, 1e-3}, {1e-4, 1e-4}, {1e-3, 1e-3}};
  const PredictionInterval iv = prediction_interval(ev, reps, 0.5);
  for (Eigen::Index i = 0; i < 3; ++i) EXPECT_NEAR(iv.hi(i) - iv.lo(i), 5.0, 1e-9) << i;
}

}  // namespace perfit::fit
