#include "perfit/model/compression.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/rng.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::model {

namespace {

// A grid of 4 x 3 configurations, each measured 2-9 times with noise, in shuffled order.
data::MeasurementTable grid_with_repeats(std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> p, b, y, w;
  for (int rep = 0; rep < 9; ++rep) {
    for (double pp : {1.0, 2.0, 8.0, 64.0}) {
      for (double bb : {32.0, 64.0, 256.0}) {
        if (rep >= 2 && rng.uniform(0, 1) < 0.4) continue;
        p.push_back(pp);
        b.push_back(bb);
        y.push_back((2.0 + 100.0 / (pp * bb) + 0.1 * std::log2(pp)) *
                    std::exp(0.05 * rng.normal()));
        w.push_back(rng.uniform(0.5, 2.0));
      }
    }
  }
  data::MeasurementTable t;
  t.add_column(data::Column("p", p));
  t.add_column(data::Column("b", b));
  t.add_column(data::Column("time_s", y));
  t.add_column(data::Column("w", w));
  t.attributes()["target"] = std::string("time_s");
  return t;
}

ModelSpec spec() {
  ModelSpec s;
  s.name = "m";
  s.expression = "c0 + c1/(p*b) + c2*log2(p)";
  s.params = {{"c0", 0, 10, false}, {"c1", 1, 1000, true}, {"c2", 0, 1, false}};
  return s;
}

}  // namespace

TEST(Compression, CompressedCostsEqualRowCostsTo1e12ForEverySquaredResidual) {
  const data::MeasurementTable t = grid_with_repeats(5);
  const Model m(spec(), t.column_names());
  Rng rng(9);
  Eigen::MatrixXd pop(3, 32);
  for (Eigen::Index j = 0; j < pop.cols(); ++j) {
    for (Eigen::Index k = 0; k < 3; ++k)
      pop(k, j) = m.from_unit(static_cast<std::size_t>(k), rng.uniform(0, 1));
  }
  std::vector<double> row_w(t.rows());
  for (auto& x : row_w) x = std::floor(rng.uniform(0, 3));  // bootstrap-like counts, some 0
  for (const Residual r : {Residual::rel_sq, Residual::sq, Residual::sq_log}) {
    for (const std::string& wcol : {std::string(), std::string("w")}) {
      CostOptions cost;
      cost.residual = r;
      cost.weight_column = wcol;
      EvaluatorOptions eo;
      eo.row_weights =
          Eigen::Map<const Eigen::VectorXd>(row_w.data(), static_cast<Eigen::Index>(row_w.size()));
      const Evaluator full(m, t, cost, eo);
      const CompressedRows c = compress_rows(t, m.columns_used(), cost, row_w);
      EXPECT_EQ(c.configurations, 12u);
      EXPECT_EQ(c.rows, t.rows());
      CostOptions cc = cost;
      cc.weight_column = kCompressedWeight;
      const Evaluator small(m, c.table, cc);
      EXPECT_NEAR(c.weight_sum, full.weight_sum(), 1e-12 * full.weight_sum());
      Eigen::VectorXd want(pop.cols()), got(pop.cols());
      full.residual_sums(pop, want);
      small.residual_sums(pop, got);
      for (Eigen::Index j = 0; j < pop.cols(); ++j) {
        EXPECT_NEAR(got(j) + c.offset, want(j), 1e-12 * want(j))
            << to_string(r) << " " << wcol << " " << j;
      }
    }
  }
}

TEST(Compression, ConfigurationsAreGroupedByTheirExactValues) {
  data::MeasurementTable t;
  t.add_column(data::Column("p", std::vector<double>{1, 2, 1, 2, 1.0000000000000002}));
  t.add_column(data::Column("b", std::vector<std::int64_t>{8, 8, 8, 16, 8}));
  EXPECT_EQ(count_configurations(t, {"p", "b"}), 4u);
  EXPECT_EQ(count_configurations(t, {"b"}), 2u);
}

TEST(Compression, ChunksInAnyCutGiveTheOneChunkResultBitForBit) {
  const data::MeasurementTable t = grid_with_repeats(11);
  for (const Residual r : {Residual::rel_sq, Residual::sq, Residual::sq_log}) {
    CostOptions cost;
    cost.residual = r;
    cost.weight_column = "w";
    const CompressedRows whole = compress_rows(t, {"p", "b"}, cost);
    for (const std::size_t cut : {std::size_t{1}, std::size_t{7}, t.rows() / 2}) {
      Compressor c({"p", "b"}, cost, true);
      for (std::size_t b = 0; b < t.rows(); b += cut) {
        std::vector<std::size_t> rows;
        for (std::size_t i = b; i < std::min(t.rows(), b + cut); ++i) rows.push_back(i);
        c.add(t.take_rows(rows));
      }
      const CompressedRows parts = c.finish(t.target(), t.attributes());
      EXPECT_EQ(parts.offset, whole.offset) << to_string(r) << " cut " << cut;
      EXPECT_EQ(parts.weight_sum, whole.weight_sum);
      EXPECT_EQ(parts.rows, whole.rows);
      for (const char* col : {"p", "b", "time_s", kCompressedWeight})
        EXPECT_EQ(parts.table.column(col).f64(), whole.table.column(col).f64()) << col;
    }
  }
}

TEST(Compression, MetricsFromMomentsMatchTheRows) {
  // 40 configurations of 200 rows with 3% noise: the metrics a streamed fit reports.
  Rng rng(3);
  std::vector<double> p, y;
  for (int rep = 0; rep < 200; ++rep) {
    for (int c = 1; c <= 40; ++c) {
      p.push_back(c);
      y.push_back((1.0 + 10.0 / c) * std::exp(0.03 * rng.normal()));
    }
  }
  data::MeasurementTable t;
  t.add_column(data::Column("p", p));
  t.add_column(data::Column("time_s", y));
  t.attributes()["target"] = std::string("time_s");
  Compressor comp({"p"}, CostOptions{}, true);
  comp.add(t);
  const CompressedRows c = comp.finish("time_s", t.attributes());
  // Predictions off the truth by up to 4%: some configurations straddle them, some do not.
  const auto predict = [](double pp) { return (1.0 + 10.0 / pp) * (1.0 + 0.001 * pp); };
  Eigen::VectorXd at_rows(static_cast<Eigen::Index>(p.size())), at_configs(40);
  for (std::size_t i = 0; i < p.size(); ++i) at_rows(static_cast<Eigen::Index>(i)) = predict(p[i]);
  const std::vector<double> cp = c.table.column("p").f64();
  for (std::size_t k = 0; k < cp.size(); ++k)
    at_configs(static_cast<Eigen::Index>(k)) = predict(cp[k]);
  const MetricSums rows = metric_sums(
      at_rows, Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size())));
  const MetricSums moments = metric_sums(at_configs, c.moments);
  EXPECT_EQ(moments.n, rows.n);
  EXPECT_NEAR(moments.sum_sq, rows.sum_sq, 1e-9 * rows.sum_sq);
  EXPECT_NEAR(moments.sum_meas, rows.sum_meas, 1e-9 * rows.sum_meas);
  EXPECT_NEAR(moments.sum_meas2, rows.sum_meas2, 1e-9 * rows.sum_meas2);
  EXPECT_NEAR(moments.sum_log_ratio_sq, rows.sum_log_ratio_sq, 1e-9 * rows.sum_log_ratio_sq);
  EXPECT_NEAR(moments.max_rel, rows.max_rel, 1e-12);
  // Estimated as for normal errors: MAPE and GMAE within 2% of the rows' own.
  EXPECT_NEAR(moments.sum_rel, rows.sum_rel, 0.02 * rows.sum_rel);
  EXPECT_NEAR(std::exp(moments.sum_log / moments.n), std::exp(rows.sum_log / rows.n),
              0.02 * std::exp(rows.sum_log / rows.n));
}

}  // namespace perfit::model
