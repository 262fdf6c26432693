#include "perfit/io/csv_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using data::ColumnType;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_support::TempDir;

TEST(CsvReader, InfersTypesFromFirstValueAndKeepsLineNumbers) {
  TempDir dir;
  const auto path = dir.write("m.csv",
                              "p,b,time_s,fw\r\n"
                              "1,32,10.5,tf\r\n"
                              "\r\n"
                              "2, 64 ,\"5.25\",\"py,torch\"\r\n");
  const CsvTable t = read_csv(path);
  ASSERT_EQ(t.table.rows(), 2u);
  EXPECT_EQ(t.table.column("p").type(), ColumnType::int64);
  EXPECT_EQ(t.table.column("b").i64(), (std::vector<std::int64_t>{32, 64}));
  EXPECT_EQ(t.table.column("time_s").f64(), (std::vector<double>{10.5, 5.25}));
  EXPECT_EQ(t.table.column("fw").str(), (std::vector<std::string>{"tf", "py,torch"}));
  EXPECT_EQ(t.line_of_row, (std::vector<std::size_t>{2, 4}));
}

TEST(CsvReader, IntColumnMeetingAFloatOrEmptyBecomesFloat) {
  TempDir dir;
  const auto path = dir.write("m.csv", "a,b\n1,1\n2.5,\n3,3\n");
  const CsvTable t = read_csv(path);
  EXPECT_EQ(t.table.column("a").f64(), (std::vector<double>{1, 2.5, 3}));
  EXPECT_EQ(t.table.column("b").type(), ColumnType::float64);
  EXPECT_TRUE(std::isnan(t.table.column("b").f64()[1]));
}

TEST(CsvReader, NonNumericValueInNumericColumnNamesLineAndColumn) {
  TempDir dir;
  const auto path = dir.write("m.csv", "p,time_s\n1,2.0\n2,n/a\n");
  EXPECT_THAT([&] { read_csv(path); },
              ThrowsMessage<DataError>(
                  AllOf(HasSubstr("line 3, column 'time_s': found 'n/a', expected a number"),
                        HasSubstr("--categorical time_s"))));
}

TEST(CsvReader, CategoricalOptionKeepsNumbersAsText) {
  TempDir dir;
  const auto path = dir.write("m.csv", "sys,t\n8,1\ndgx,2\n");
  CsvOptions o;
  o.categorical = {"sys"};
  EXPECT_EQ(read_csv(path, o).table.column("sys").str(), (std::vector<std::string>{"8", "dgx"}));
  o.categorical = {"nope"};
  EXPECT_THAT([&] { read_csv(path, o); },
              ThrowsMessage<ConfigError>(HasSubstr("--categorical names column 'nope'")));
}

TEST(CsvReader, RaggedRowIsRejectedWithItsLine) {
  TempDir dir;
  const auto path = dir.write("m.csv", "a,b,c\n1,2,3\n4,5\n");
  EXPECT_THAT([&] { read_csv(path); },
              ThrowsMessage<DataError>(HasSubstr("line 3: found 2 fields, expected 3")));
}

TEST(CsvReader, EmptyFileHeaderOnlyAndBadHeadersAreRejected) {
  TempDir dir;
  EXPECT_THAT([&] { read_csv(dir.write("e.csv", "")); },
              ThrowsMessage<DataError>(HasSubstr("is empty; expected a header row")));
  EXPECT_THAT([&] { read_csv(dir.write("h.csv", "a,b\n")); },
              ThrowsMessage<DataError>(HasSubstr("has a header but no data rows")));
  EXPECT_THAT([&] { read_csv(dir.write("d.csv", "a,a\n1,2\n")); },
              ThrowsMessage<DataError>(HasSubstr("column name 'a' appears twice")));
  EXPECT_THAT([&] { read_csv(dir.write("n.csv", "a,,c\n1,2,3\n")); },
              ThrowsMessage<DataError>(HasSubstr("header column 2 has no name")));
  EXPECT_THAT([&] { read_csv(dir.write("q.csv", "a,b\n\"1,2\n")); },
              ThrowsMessage<DataError>(HasSubstr("line 2: unterminated quote")));
}

TEST(CsvReader, MissingFileIsAnIoError) {
  EXPECT_THAT([&] { read_csv("/nonexistent/x.csv"); },
              ThrowsMessage<IoError>(HasSubstr("cannot open CSV '/nonexistent/x.csv'")));
}

TEST(CsvReader, StripsAByteOrderMarkAndNamesTheSeparatorOfAForeignHeader) {
  TempDir dir;
  const auto bom = dir.write("bom.csv", "\xEF\xBB\xBFp,time_s\n1,2\n");
  EXPECT_EQ(read_csv(bom).table.column_names(), (std::vector<std::string>{"p", "time_s"}));
  const auto semi = dir.write("semi.csv", "p;time_s\n1;2\n");
  EXPECT_THAT([&] { read_csv(semi); },
              ThrowsMessage<DataError>(HasSubstr("separated by ';'; pass --delimiter ';'")));
  CsvOptions o;
  o.delimiter = ';';
  o.keep_text = true;
  const CsvTable t = read_csv(semi, o);
  EXPECT_EQ(t.table.rows(), 1u);
  EXPECT_EQ(t.text[0], (std::vector<std::string>{"1", "2"}));
}

TEST(CsvReader, QuotedNumbersWithThousandsSeparatorsAreNumbers) {
  TempDir dir;
  const auto path = dir.write("m.csv",
                              "gpus,samples_per_s\n"
                              "1,\"1,234.5\"\n"
                              "\"1,024\",\"12,345,678\"\n"
                              "8,\"-2,000.25e0\"\n");
  const CsvTable t = read_csv(path);
  EXPECT_EQ(t.table.column("gpus").i64(), (std::vector<std::int64_t>{1, 1024, 8}));
  EXPECT_EQ(t.table.column("samples_per_s").f64(),
            (std::vector<double>{1234.5, 12345678, -2000.25}));
  // A text column keeps what was written.
  const auto text = dir.write("t.csv", "label,x\nabc,1\n\"1,000\",2\n");
  EXPECT_EQ(read_csv(text).table.column("label").str(), (std::vector<std::string>{"abc", "1,000"}));
}

TEST(CsvReader, MisgroupedOrUnquotedSeparatorsAreNotNumbers) {
  TempDir dir;
  // "12,34" is no thousands grouping; unquoted "1,234" in a ';' file may be a decimal comma.
  EXPECT_THAT([&] { read_csv(dir.write("a.csv", "x\n1\n\"12,34\"\n")); },
              ThrowsMessage<DataError>(HasSubstr("found '12,34', expected a number")));
  CsvOptions semi;
  semi.delimiter = ';';
  EXPECT_THAT([&] { read_csv(dir.write("b.csv", "x;y\n1;2\n1,234;3\n"), semi); },
              ThrowsMessage<DataError>(HasSubstr("found '1,234', expected a number")));
}

}  // namespace perfit::io
