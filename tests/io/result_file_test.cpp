#include "perfit/io/result_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/model_config.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

TEST(ResultFile, RoundTripKeepsEverything) {
  testing_support::TempDir dir;
  ResultFile r;
  r.model_name = "generic";
  r.model_yaml = model_to_yaml(load_model("generic"));
  r.config_yaml = "seed: 3\n";
  r.data_file = "demo.h5";
  r.set = "/pytorch/resnet50";
  r.data_checksum = "fnv1a64:0123456789abcdef";
  r.target = "time_s";
  r.unit = "s";
  r.rows = 100;
  r.seed = 3;
  r.params = {{"c0", 45.0, 0, 1000, false, false}, {"c1", 2e-3, 1e-6, 1, true, true}};
  r.cost = 1e-4;
  r.cost_before_polish = 2e-4;
  r.polish_improved = true;
  r.stop_reason = "converged";
  r.stop_message = "population converged";
  r.generations = 250;
  r.evaluations = 25000;
  r.seconds = 1.5;
  r.metrics = {0.8, 1.2, 0.999, 0.6, 4.0};
  r.history = {1.0, 0.5, 1e-4};
  r.lambda = 1e-3;
  r.lambda_split = "forward:p";
  r.lambda_grid = {0.0, 1e-3, 1e-2};
  r.lambda_scores = {0.02, 0.015, 0.03};
  r.perfit_version = "0.1.0";
  r.git_revision = "abc";
  r.created_utc = "2026-11-29T00:00:00Z";
  write_result_file(dir.file("r.h5"), r);
  const ResultFile b = read_result_file(dir.file("r.h5"));
  EXPECT_EQ(b.model_yaml, r.model_yaml);
  EXPECT_EQ(b.params.size(), 2u);
  EXPECT_EQ(b.params[1].value, 2e-3);
  EXPECT_TRUE(b.params[1].log_scale);
  EXPECT_TRUE(b.params[1].at_bound);
  EXPECT_EQ(b.history, r.history);
  EXPECT_EQ(b.lambda, 1e-3);
  EXPECT_EQ(b.lambda_split, "forward:p");
  EXPECT_EQ(b.lambda_grid, r.lambda_grid);
  EXPECT_EQ(b.lambda_scores, r.lambda_scores);
  EXPECT_EQ(b.metrics.r2, 0.999);
  EXPECT_EQ(b.seed, 3u);
  EXPECT_EQ(b.data_checksum, r.data_checksum);
  // The stored model parses back to the same model.
  const auto spec = parse_model_yaml(b.model_yaml, "stored");
  EXPECT_EQ(model_to_yaml(spec), r.model_yaml);
  EXPECT_TRUE(b.candidates.empty());
  EXPECT_EQ(b.kept_rows.cols(), 0u);
  EXPECT_EQ(b.kept_stride, 0u);  // no /rows written, and the file says so
}

TEST(ResultFile, KeptRowsAndCandidatesRoundTripExactly) {
  testing_support::TempDir dir;
  ResultFile r;
  r.model_name = "amdahl";
  r.model_yaml = model_to_yaml(load_model("amdahl"));
  r.params = {{"t1", 100.0, 0, 1e9, false, false}, {"s", 0.1, 0, 1, false, false}};
  r.history = {1.0};
  r.kept_rows.add_column(data::Column("gpus", std::vector<std::int64_t>{1, 2, 4}));
  r.kept_rows.add_column(data::Column("time", std::vector<double>{100.0, 55.0, 32.5}));
  r.kept_rows.add_column(data::Column("predicted", std::vector<double>{100.0, 55.0, 32.5}));
  r.kept_rows.add_column(data::Column("residual", std::vector<double>{0.0, 0.0, 0.0}));
  r.kept_stride = 1;
  r.candidates = {
      {1, "amdahl", "amdahl", 1.5, 1.5, r.model_yaml, {100.0, 0.1}},
      {2, "power", "power", 2.25, 2.25, model_to_yaml(load_model("power")), {0.1 + 0.2, 1.0 / 3.0}},
      {3, "usl", "usl", std::nan(""), std::nan(""), "", {}}};
  write_result_file(dir.file("r.h5"), r);
  const ResultFile b = read_result_file(dir.file("r.h5"));
  EXPECT_EQ(b.kept_stride, 1u);
  ASSERT_EQ(b.kept_rows.cols(), 4u);
  EXPECT_EQ(b.kept_rows.column("gpus").i64(), r.kept_rows.column("gpus").i64());
  EXPECT_EQ(b.kept_rows.column("time").f64(), r.kept_rows.column("time").f64());
  ASSERT_EQ(b.candidates.size(), 3u);
  EXPECT_EQ(b.candidates[1].model, "power");
  EXPECT_EQ(b.candidates[1].params, r.candidates[1].params);  // every bit of 0.1 + 0.2 and 1/3
  EXPECT_EQ(b.candidates[1].model_yaml, r.candidates[1].model_yaml);
  EXPECT_TRUE(std::isnan(b.candidates[2].score));
  EXPECT_TRUE(b.candidates[2].params.empty());
}

TEST(ResultFile, AttributesVisitedOneAtATimeAreTheMapsInItsOrder) {
  // Records of 10^6 winners are encoded from each_result_attribute; files and JSON from
  // result_attributes: one must be the other, order, types and values.
  ResultFile r;
  r.model_name = "amdahl";
  r.seed = 18446744073709551615ULL;
  r.warnings = {"one", "two"};
  r.kept_stride = 7;  // no rows kept: written as 0
  for (const bool with_rows : {false, true}) {
    if (with_rows) r.kept_rows.add_column(data::Column("p", std::vector<double>{1, 2}));
    const data::Attributes a = result_attributes(r);
    data::Attributes visited;
    std::vector<std::string> order;
    each_result_attribute(r, [&](const std::string& key, const auto& v) {
      order.push_back(key);
      visited.emplace(key, v);
    });
    data::WireWriter from_map, one_at_a_time;  // bit for bit (NaN fields are unequal as values)
    from_map.attributes(a);
    one_at_a_time.attributes(visited);
    EXPECT_EQ(one_at_a_time.take(), from_map.take());
    EXPECT_EQ(visited.size(), a.size());
    EXPECT_EQ(order.size(), result_attribute_count());
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
    EXPECT_EQ(std::get<std::string>(a.at("warnings")), "one\ntwo");
    EXPECT_EQ(std::get<std::int64_t>(a.at("rows_kept_stride")), with_rows ? 7 : 0);
    EXPECT_EQ(static_cast<std::uint64_t>(std::get<std::int64_t>(a.at("seed"))), r.seed);
  }
}

TEST(ResultFile, AStoreIsNotAResult) {
  testing_support::TempDir dir;
  const auto p = dir.file("s.h5");
  {
    hid_t f = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
  }
  EXPECT_THAT([&] { read_result_file(p); },
              ::testing::ThrowsMessage<DataError>(::testing::HasSubstr("not a perfit result")));
}

}  // namespace perfit::io
