#include "perfit/data/measurement_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/data/column_summary.hpp"

namespace perfit::data {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

MeasurementTable small() {
  MeasurementTable t;
  t.add_column(Column("p", std::vector<std::int64_t>{1, 2, 4}));
  t.add_column(Column("time", std::vector<double>{3.0, 2.0, 1.5}));
  t.add_column(Column("fw", std::vector<std::string>{"tf", "pt", "tf"}));
  return t;
}

TEST(MeasurementTable, RejectsColumnsOfAnotherLength) {
  MeasurementTable t = small();
  EXPECT_THAT(
      [&] {
        t.add_column(Column("b", std::vector<double>{1, 2}));
      },
      ThrowsMessage<DataError>(HasSubstr("'b' has 2 rows, the other columns have 3")));
  EXPECT_THAT(
      [&] {
        t.add_column(Column("p", std::vector<double>{1, 2, 3}));
      },
      ThrowsMessage<DataError>(HasSubstr("duplicate column name 'p'")));
}

TEST(MeasurementTable, MissingColumnListsTheOnesThereAre) {
  MeasurementTable t = small();
  EXPECT_THAT([&] { t.column("b"); },
              ThrowsMessage<DataError>(HasSubstr("no column 'b'; the set has: p, time, fw")));
}

TEST(MeasurementTable, AppendPromotesIntToFloatAndChecksNames) {
  MeasurementTable a = small(), b;
  b.add_column(Column("fw", std::vector<std::string>{"mx"}));
  b.add_column(Column("time", std::vector<double>{9.0}));
  b.add_column(Column("p", std::vector<double>{8.5}));
  a.append(b);
  ASSERT_EQ(a.rows(), 4u);
  EXPECT_EQ(a.column("p").type(), ColumnType::float64);
  EXPECT_EQ(a.column("p").f64()[3], 8.5);
  EXPECT_EQ(a.column("fw").str()[3], "mx");
  MeasurementTable c;
  c.add_column(Column("q", std::vector<double>{1}));
  EXPECT_THAT([&] { a.append(c); },
              ThrowsMessage<DataError>(HasSubstr("column 'q' which the existing set lacks")));
}

TEST(MeasurementTable, FilterKeepsStringsIntact) {
  MeasurementTable t = small();
  t.filter_rows({true, false, true});
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.column("fw").str(), (std::vector<std::string>{"tf", "tf"}));
  EXPECT_EQ(t.column("p").i64(), (std::vector<std::int64_t>{1, 4}));
}

TEST(MeasurementTable, StringColumnIsNotNumeric) {
  MeasurementTable t = small();
  EXPECT_THAT([&] { t.column("fw").to_double(); },
              ThrowsMessage<DataError>(HasSubstr("column 'fw' holds strings")));
  EXPECT_EQ(t.column("p").to_double(), (std::vector<double>{1, 2, 4}));
}

TEST(ColumnSummary, RangeSkipsNonFiniteAndListsFewDistinctValues) {
  const double nan = std::nan("");
  const ColumnSummary s = summarize(Column("x", std::vector<double>{2, nan, -1, 2, 5}));
  EXPECT_EQ(s.min, -1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.non_finite, 1u);
  EXPECT_EQ(s.distinct, (std::vector<std::string>{"-1", "2", "5"}));
  std::vector<std::int64_t> many(100);
  for (int i = 0; i < 100; ++i) many[i] = i;
  const ColumnSummary m = summarize(Column("m", many));
  EXPECT_TRUE(m.distinct_truncated);
  EXPECT_TRUE(m.distinct.empty());
  EXPECT_EQ(m.max, 99);
}

TEST(MeasurementTable, TakeRowsKeepsTheGivenRowsInOrderWithTheAttributes) {
  MeasurementTable t;
  t.add_column(Column("p", std::vector<double>{1, 2, 4, 8}));
  t.add_column(Column("n", std::vector<std::int64_t>{10, 20, 40, 80}));
  t.add_column(Column("fw", std::vector<std::string>{"a", "b", "a", "c"}));
  t.attributes()["target"] = std::string("p");
  const MeasurementTable part = t.take_rows({3, 0, 2});
  ASSERT_EQ(part.rows(), 3u);
  EXPECT_EQ(part.column("p").f64(), (std::vector<double>{8, 1, 4}));
  EXPECT_EQ(part.column("n").i64(), (std::vector<std::int64_t>{80, 10, 40}));
  EXPECT_EQ(part.column("fw").str(), (std::vector<std::string>{"c", "a", "a"}));
  EXPECT_EQ(part.target(), "p");
  // Its own storage, sized to its rows (filter_rows keeps the whole table's capacity).
  EXPECT_EQ(part.column("fw").str().capacity(), 3u);
  EXPECT_EQ(t.take_rows({}).rows(), 0u);
}

}  // namespace perfit::data
