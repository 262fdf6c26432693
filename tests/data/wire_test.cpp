#include "perfit/data/wire.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "perfit/core/error.hpp"

namespace perfit::data {

namespace {

MeasurementTable mixed_table() {
  MeasurementTable t;
  t.add_column(Column(
      "p", std::vector<double>{1.0, 0.1 + 0.2, -0.0, std::numeric_limits<double>::quiet_NaN()}));
  t.add_column(Column(
      "rank", std::vector<std::int64_t>{0, -1, std::numeric_limits<std::int64_t>::max(), 7}));
  t.add_column(
      Column("fw", std::vector<std::string>{"mxnet", "", "a,b\n\"c\"", std::string("\0x", 2)}));
  return t;
}

}  // namespace

TEST(Wire, EveryValueComesBackBitForBitInOrder) {
  WireWriter w;
  w.count(3);
  w.numbers({1e-310, -2.5, std::numeric_limits<double>::infinity()});
  const Attributes a = {
      {"name", std::string("amdahl")}, {"cost", 0.1 + 0.2}, {"rows", std::int64_t{-12}}};
  w.attributes(a);
  w.table(mixed_table());
  w.text("end");
  const std::string bytes = w.take();

  WireReader r(bytes, "a test record");
  EXPECT_EQ(r.count(), 3u);
  const std::vector<double> v = r.numbers();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 1e-310);
  EXPECT_EQ(v[1], -2.5);
  EXPECT_TRUE(std::isinf(v[2]));
  EXPECT_EQ(r.attributes(), a);
  const MeasurementTable t = r.table();
  const MeasurementTable want = mixed_table();
  ASSERT_EQ(t.columns().size(), 3u);
  EXPECT_EQ(t.column("p").f64()[1], want.column("p").f64()[1]);
  EXPECT_TRUE(std::signbit(t.column("p").f64()[2]));
  EXPECT_TRUE(std::isnan(t.column("p").f64()[3]));
  EXPECT_EQ(t.column("rank").i64(), want.column("rank").i64());
  EXPECT_EQ(t.column("fw").str(), want.column("fw").str());
  EXPECT_EQ(r.text(), "end");
  EXPECT_TRUE(r.done());
}

TEST(Wire, TruncatedOrForeignBytesAreADataErrorNamingTheRecord) {
  WireWriter w;
  w.attributes({{"k", std::string("value")}});
  w.table(mixed_table());
  const std::string bytes = w.take();
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string cut = bytes.substr(0, n);
    WireReader r(cut, "a test record");
    try {
      (void)r.attributes();
      (void)r.table();
      FAIL() << "read " << n << " bytes of " << bytes.size() << " without an error";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("a test record is truncated"), std::string::npos)
          << e.what();
    }
  }
  // A count no record could hold is refused before anything is allocated for it.
  WireWriter huge;
  huge.count(std::numeric_limits<std::uint64_t>::max() / 2);
  const std::string h = huge.take();
  WireReader r(h, "a test record");
  EXPECT_THROW((void)r.numbers(), DataError);
  std::string foreign(1, '\x09');
  WireReader f(foreign, "a test record");
  EXPECT_THROW((void)f.value(), DataError);
}

}  // namespace perfit::data
