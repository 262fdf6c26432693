#include "perfit/select/row_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "perfit/core/error.hpp"

namespace perfit::select {

namespace {

JsonRow ok_row() {
  return {{"set", "/x/r1/time"},
          {"status", "ok"},
          {"model", "pmnf_search"},
          {"hypothesis", "c0 + c1*p^(1/2)"},
          {"score", 1.25},
          {"runner_up", "ideal"},
          {"runner_up_score", nullptr},
          {"metrics", {{"mape", 0.5}, {"rmse", 1e-300}, {"r2", NAN}, {"max_rel_err", 3}}},
          {"constants", {{"c1", 2.0}, {"c0", -0.1}}},
          {"message", "MAPE of held-out rows, split forward:p, 2 holdout"},
          {"callpath", "main->solve, \"inner\""},
          {"metric", "time"}};
}

}  // namespace

TEST(RowText, HoldsTheRowAsSelectionJsonAndCsvPrintIt) {
  const JsonRow row = ok_row();
  const std::string bytes = render_row(row);
  const RowText t = read_row_text(bytes);
  EXPECT_EQ(t.status, "ok");
  EXPECT_EQ(t.json, row_json_text(row));
  EXPECT_EQ(JsonRow::parse(t.json), JsonRow::parse(row.dump()));  // NaN printed as null by both
  ASSERT_EQ(t.fixed.size(), std::size(kCsvFixed));
  for (std::size_t k = 0; k < std::size(kCsvFixed); ++k) {
    const char* f = kCsvFixed[k];
    EXPECT_EQ(t.fixed[k], row.contains(f) ? csv_field(row[f]) : "") << f;
  }
  EXPECT_EQ(t.fixed[1], "\"main->solve, \"\"inner\"\"\"");  // quoted, its quotes doubled
  EXPECT_EQ(t.fixed[8], "");                                // null
  EXPECT_THAT(t.metrics, testing::ElementsAre("0.5", "1e-300", "null", "3"));
  ASSERT_EQ(t.constants.size(), 2u);  // in the row's order
  EXPECT_EQ(t.constants[0].first, "c1");
  EXPECT_EQ(t.constants[0].second, "2.0");
  EXPECT_EQ(t.constants[1].second, "-0.1");
  EXPECT_EQ(t.message, "\"MAPE of held-out rows, split forward:p, 2 holdout\"");
  EXPECT_TRUE(t.callpath);
  EXPECT_FALSE(t.result_file);
}

TEST(RowText, AnErrorRowHasNoMetricsOrConstants) {
  const JsonRow row = {
      {"set", "/x/a"}, {"status", "error"}, {"message", "too few rows"}, {"result_file", ""}};
  const std::string bytes = render_row(row);
  const RowText t = read_row_text(bytes);
  EXPECT_EQ(t.status, "error");
  EXPECT_THAT(t.metrics, testing::Each(""));
  EXPECT_TRUE(t.constants.empty());
  EXPECT_EQ(t.message, "too few rows");
  EXPECT_FALSE(t.callpath);
  EXPECT_TRUE(t.result_file);
}

TEST(RowText, BytesItDidNotWriteAreRefused) {
  std::string bytes = render_row(ok_row());
  EXPECT_THROW(read_row_text(bytes.substr(0, bytes.size() - 3)), DataError);
  EXPECT_THROW(read_row_text(bytes + "x"), DataError);
  bytes[0] ^= 1;  // the layout version
  EXPECT_THROW(read_row_text(bytes), DataError);
}

}  // namespace perfit::select
