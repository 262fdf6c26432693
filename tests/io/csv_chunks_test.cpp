#include "perfit/io/csv_chunks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using data::ColumnType;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_support::TempDir;

// Every chunk holds each column as the whole file types it: the integers of the first chunk are
// floats when a later row holds a decimal, a column empty at first is float, text stays text.
TEST(CsvChunks, ChunksTakeTheWholeFilesTypesAndConcatenateToReadCsv) {
  TempDir dir;
  const auto path = dir.write("m.csv",
                              "p,t,fw,e\n"
                              "1,2,tf,\n"
                              "2,-1,\"py,torch\",\n"
                              "\n"
                              "3,,mx,4\n"
                              "4.5,8,tf,5\n");
  CsvChunks chunks(path, {}, {"t", 0.0});
  EXPECT_EQ(chunks.rows(), 4u);
  EXPECT_EQ(chunks.type("p"), ColumnType::float64);
  EXPECT_EQ(chunks.type("t"), ColumnType::float64);  // an empty cell: NaN
  EXPECT_EQ(chunks.type("fw"), ColumnType::string);
  EXPECT_EQ(chunks.first_text("fw"), "tf");
  EXPECT_EQ(chunks.type("nope"), std::nullopt);
  // t: -1 on line 3 and the empty cell on line 5 are not times > 0
  EXPECT_EQ(chunks.watched().bad, 2u);
  EXPECT_EQ(chunks.watched().first_line, 3u);
  EXPECT_EQ(chunks.watched().first_value, -1.0);
  ASSERT_EQ(chunks.empty().size(), 2u);
  EXPECT_EQ(chunks.empty()[0].column, "t");
  EXPECT_EQ(chunks.empty()[1].first_line, 2u);

  const CsvTable whole = read_csv(path);
  const CsvTable a = chunks.next(3), b = chunks.next(3), end = chunks.next(3);
  EXPECT_EQ(a.table.rows(), 3u);
  EXPECT_EQ(b.table.rows(), 1u);
  EXPECT_EQ(end.table.rows(), 0u);
  EXPECT_EQ(a.line_of_row, (std::vector<std::size_t>{2, 3, 5}));
  EXPECT_EQ(b.line_of_row, (std::vector<std::size_t>{6}));
  EXPECT_EQ(a.table.column("p").f64(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(b.table.column("p").f64(), (std::vector<double>{4.5}));
  for (const auto& c : whole.table.columns()) {
    EXPECT_EQ(a.table.column(c.name()).type(), c.type()) << c.name();
    EXPECT_EQ(b.table.column(c.name()).type(), c.type()) << c.name();
  }
  EXPECT_EQ(a.table.column("fw").str(), (std::vector<std::string>{"tf", "py,torch", "mx"}));
  EXPECT_TRUE(std::isnan(a.table.column("e").f64()[0]));
  EXPECT_EQ(b.table.column("e").f64(), (std::vector<double>{5}));
}

// A throughput is watched as the time work / throughput it becomes.
TEST(CsvChunks, AWatchedThroughputCountsTheTimesItGives) {
  TempDir dir;
  const auto path = dir.write("m.csv", "thr\n10\n0\n1e-320\n");
  CsvChunks chunks(path, {}, {"thr", 100.0});
  EXPECT_EQ(chunks.watched().bad, 2u);  // 0, and 1e-320 (100 / 1e-320 is inf)
  EXPECT_EQ(chunks.watched().first_line, 3u);
}

// The first pass refuses what read_csv refuses, in the same words.
TEST(CsvChunks, TheFirstPassRefusesAsReadCsv) {
  TempDir dir;
  for (const char* text : {"", "a,b\n", "a,a\n1,2\n", "a,b\n1,2\n3\n", "a\n1\nx\n"}) {
    const auto path = dir.write("bad.csv", text);
    std::string expected;
    try {
      read_csv(path);
    } catch (const Error& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << text;
    EXPECT_THAT([&] { CsvChunks c(path, {}); }, ThrowsMessage<DataError>(expected)) << text;
  }
}

// The file changed between the passes: refused, never a short or padded set.
TEST(CsvChunks, AFileThatChangesBetweenThePassesIsRefused) {
  TempDir dir;
  const auto path = dir.write("m.csv", "a\n1\n2\n");
  CsvChunks chunks(path, {});
  std::ofstream(path, std::ios::app) << "3\n";
  EXPECT_THAT(
      [&] { chunks.next(10); },
      ThrowsMessage<DataError>(HasSubstr("changed while it was read: 2 rows the first time")));
}

}  // namespace perfit::io
