#include "perfit/data/row_validity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace perfit::data {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

// Each column counts its own non-finite values; a row bad in two columns is one invalid row;
// int64 and text columns cannot hold NaN and are not listed.
TEST(RowValidity, CountsEachColumnAndEachInvalidRowOnce) {
  MeasurementTable t;
  t.add_column(Column("p", std::vector<double>{1, kNaN, 4, 8, kInf}));
  t.add_column(Column("time", std::vector<double>{1, kNaN, -kInf, 2, 3}));
  t.add_column(Column("b", std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  const RowValidity v = check_rows(t, {"p", "time", "b", "missing"});
  EXPECT_EQ(v.columns, (std::vector<std::string>{"p", "time"}));
  EXPECT_EQ(v.invalid, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(v.keep, (std::vector<bool>{true, false, false, true, false}));
  EXPECT_EQ(v.rows_invalid, 3u);
  EXPECT_EQ(describe_invalid(v), "column 'p': 2 rows, column 'time': 2 rows");
}

TEST(RowValidity, AllFiniteKeepsEveryRow) {
  MeasurementTable t;
  t.add_column(Column("time", std::vector<double>{1, 2, 3}));
  const RowValidity v = check_rows(t, {"time"});
  EXPECT_EQ(v.rows_invalid, 0u);
  EXPECT_EQ(v.invalid, (std::vector<std::size_t>{0}));
  EXPECT_EQ(v.keep, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(describe_invalid(v), "");
}

}  // namespace perfit::data
