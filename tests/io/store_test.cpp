// Store writer and reader together: what is written is what is read, exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <random>

#include "perfit/core/error.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/io/group_writer.hpp"
#include "perfit/io/store_format.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/store_writer.hpp"
#include "perfit/io/synth_store.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using data::Column;
using data::MeasurementTable;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_support::TempDir;

MeasurementTable table_of(std::size_t n) {
  MeasurementTable t;
  std::vector<std::int64_t> p(n);
  std::vector<double> time(n);
  std::vector<std::string> fw(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = static_cast<std::int64_t>(1) << (i % 11);
    time[i] = 1.0 / (1.0 + static_cast<double>(i)) + 1e-300 * static_cast<double>(i % 3);
    fw[i] = i % 2 ? "tensorflow" : "pytorch \xC3\xA9";  // UTF-8 survives
  }
  t.add_column(Column("p", std::move(p)));
  t.add_column(Column("time_s", std::move(time)));
  t.add_column(Column("fw", std::move(fw)));
  t.attributes()["target"] = std::string("time_s");
  t.attributes()["truth_c0"] = 4.5;
  t.attributes()["count"] = std::int64_t{7};
  return t;
}

void write_store(const std::string& path, const std::string& set, const MeasurementTable& t) {
  StoreWriter w(path);
  w.write_set(set, t);
  w.close();
}

TEST(Store, RoundTripIsExactForSmallAndChunkedSets) {
  TempDir dir;
  for (std::size_t n : {std::size_t{5}, std::size_t{100000}}) {
    const auto path = dir.file("s" + std::to_string(n) + ".h5");
    const MeasurementTable t = table_of(n);
    write_store(path, "/pytorch/resnet50", t);
    StoreReader r(path);
    EXPECT_EQ(r.sets(), std::vector<std::string>{"/pytorch/resnet50"});
    const MeasurementTable back = r.read("/pytorch/resnet50");
    EXPECT_EQ(back.column_names(), (std::vector<std::string>{"p", "time_s", "fw"}));
    EXPECT_EQ(back.column("p").i64(), t.column("p").i64());
    EXPECT_EQ(back.column("time_s").f64(), t.column("time_s").f64());
    EXPECT_EQ(back.column("fw").str(), t.column("fw").str());
    EXPECT_EQ(std::get<double>(back.attributes().at("truth_c0")), 4.5);
    EXPECT_EQ(std::get<std::int64_t>(back.attributes().at("count")), 7);
    EXPECT_EQ(back.target(), "time_s");
  }
}

TEST(Store, PlainGroupsOfManyRowsKeepTextExactlyAsFixedLengthStrings) {
  TempDir dir;
  const auto path = dir.file("g.h5");
  MeasurementTable t = table_of(kChunkThresholdRows + 1500);
  std::vector<std::string> text(t.rows());
  for (std::size_t i = 0; i < text.size(); ++i)
    text[i] = i % 7 ? std::string(i % 300, 'x') + "\n\xC3\xA9" : "";
  t.add_column(Column("yaml", text));
  {
    StoreWriter w(path);
    w.write_group("/winners", t);
    w.close();
  }
  const StoreReader r(path);
  const MeasurementTable back = r.read_group("/winners");
  EXPECT_EQ(back.column_names(), (std::vector<std::string>{"p", "time_s", "fw", "yaml"}));
  EXPECT_EQ(back.column("yaml").str(), text);
  EXPECT_EQ(back.column("fw").str(), t.column("fw").str());
  EXPECT_EQ(back.column("time_s").f64(), t.column("time_s").f64());
  EXPECT_EQ(r.read_group("/winners", {9000, 9003}).column("yaml").str(),
            (std::vector<std::string>(text.begin() + 9000, text.begin() + 9003)));
}

// A streamed group's text columns, whole chunks deflated on threads and written as they are:
// blocks that start and end on chunks, one that ends inside a chunk, one that starts inside one
// (both through HDF5's own filter) and the last, whose last chunk is partial. Read back through
// HDF5's filter: every value as written.
TEST(Store, StreamedTextDeflatedOnThreadsReadsBackThroughHdf5sFilter) {
  TempDir dir;
  const auto path = dir.file("s.h5");
  const std::size_t rows = kChunkThresholdRows + 1808;  // 10,000: the last chunk holds 784 rows
  std::vector<std::string> text(rows);
  for (std::size_t i = 0; i < rows; ++i)
    text[i] = "set: /x/r" + std::to_string(i) + "\n" + std::string(i % 97, 'y');
  {
    StoreWriter w(path);
    GroupWriter g = w.stream_group("/winners", {{"yaml", data::ColumnType::string, 200}}, rows);
    for (const auto& [begin, end] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, 4096}, {4096, 5000}, {5000, 6144}, {6144, rows}}) {
      MeasurementTable block;
      block.add_column(
          Column("yaml", std::vector<std::string>(text.begin() + begin, text.begin() + end)));
      g.write(begin, block);
    }
    w.close();
  }
  const StoreReader r(path);
  EXPECT_EQ(r.read_group("/winners").column("yaml").str(), text);
  EXPECT_EQ(r.read_group("/winners", {9990, rows}).column("yaml").str(),
            (std::vector<std::string>(text.begin() + 9990, text.end())));
}

// A block's columns go to one batch of chunks deflated side by side: numbers (one chunk of
// 8,192 rows per block) and text, the last chunk of each partial; HDF5 reads them back.
TEST(Store, AGroupsColumnsDeflatedTogetherReadBackThroughHdf5sFilters) {
  TempDir dir;
  const auto path = dir.file("s.h5");
  const std::size_t rows = kGroupChunkRows + 1808;
  std::vector<std::string> text(rows);
  std::vector<double> cost(rows);
  std::vector<std::int64_t> count(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    text[i] = "set: /x/r" + std::to_string(i) + "\n" + std::string(i % 97, 'y');
    cost[i] = 1.0 / static_cast<double>(i + 3);
    count[i] = static_cast<std::int64_t>(i * i) - 7;
  }
  {
    StoreWriter w(path);
    GroupWriter g = w.stream_group("/winners",
                                   {{"yaml", data::ColumnType::string, 200},
                                    {"cost", data::ColumnType::float64, 0},
                                    {"count", data::ColumnType::int64, 0}},
                                   rows);
    for (const auto& [begin, end] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, kGroupChunkRows}, {kGroupChunkRows, rows}}) {
      MeasurementTable block;
      const auto b = static_cast<std::ptrdiff_t>(begin), e = static_cast<std::ptrdiff_t>(end);
      block.add_column(
          Column("yaml", std::vector<std::string>(text.begin() + b, text.begin() + e)));
      block.add_column(Column("cost", std::vector<double>(cost.begin() + b, cost.begin() + e)));
      block.add_column(
          Column("count", std::vector<std::int64_t>(count.begin() + b, count.begin() + e)));
      g.write(begin, block);
    }
    w.close();
  }
  const StoreReader r(path);
  const MeasurementTable back = r.read_group("/winners");
  EXPECT_EQ(back.column("yaml").str(), text);
  EXPECT_EQ(back.column("cost").f64(), cost);
  EXPECT_EQ(back.column("count").i64(), count);
}

// A column whose chunks hardly deflate (noisy float64: ~1.1:1) has its later chunks stored as
// they are, with both filters marked skipped in the chunk; every 32nd is deflated again, and
// once the values turn regular the chunks are deflated again. The last chunk, partial, stored
// as it is too (zero-padded, as HDF5 keeps it). A chunk that deflating would grow (random
// bits) is stored as it is from the first. Read back exactly by HDF5.
TEST(Store, ChunksThatHardlyDeflateAreStoredAsTheyAreAndReadBack) {
  TempDir dir;
  const auto path = dir.file("s.h5");
  const std::size_t chunks = 81, rows = (chunks - 1) * kGroupChunkRows + 100;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  std::vector<double> noisy(rows), rough(rows), regular(rows);
  std::vector<std::int64_t> bits(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    noisy[i] = i < 40 * kGroupChunkRows ? u(rng) : 3.0;  // constant from chunk 40 on
    rough[i] = u(rng);
    regular[i] = static_cast<double>(i % 5);
    bits[i] = static_cast<std::int64_t>(rng());
  }
  const std::vector<std::pair<const char*, const std::vector<double>*>> columns = {
      {"noisy", &noisy}, {"rough", &rough}, {"regular", &regular}};
  {
    StoreWriter w(path);
    std::vector<GroupColumn> shape;
    for (const auto& [name, values] : columns)
      shape.push_back({name, data::ColumnType::float64, 0});
    shape.push_back({"bits", data::ColumnType::int64, 0});
    GroupWriter g = w.stream_group("/winners", shape, rows);
    for (std::size_t begin = 0; begin < rows; begin += kGroupChunkRows) {
      MeasurementTable block;
      const auto b = static_cast<std::ptrdiff_t>(begin),
                 e = static_cast<std::ptrdiff_t>(std::min(rows, begin + kGroupChunkRows));
      for (const auto& [name, values] : columns)
        block.add_column(
            Column(name, std::vector<double>(values->begin() + b, values->begin() + e)));
      block.add_column(
          Column("bits", std::vector<std::int64_t>(bits.begin() + b, bits.begin() + e)));
      g.write(begin, block);
    }
    w.close();
  }
  const auto masks = [&](const std::string& name) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(file, ("/winners/" + name).c_str(), H5P_DEFAULT);
    std::vector<unsigned> out;
    for (std::size_t c = 0; c < chunks; ++c) {
      hsize_t at = c * kGroupChunkRows, size = 0;
      unsigned mask = 99;
      haddr_t addr = HADDR_UNDEF;
      EXPECT_GE(H5Dget_chunk_info_by_coord(d, &at, &mask, &addr, &size), 0);
      out.push_back(mask);
    }
    H5Dclose(d);
    H5Fclose(file);
    return out;
  };
  const std::vector<unsigned> n = masks("noisy"), r = masks("rough"), g = masks("regular"),
                              x = masks("bits");
  EXPECT_EQ(n[0], 0u);                                            // deflated: it decides
  for (std::size_t c = 1; c < 32; ++c) EXPECT_EQ(n[c], 3u) << c;  // shuffle, deflate skipped
  EXPECT_EQ(n[32], 0u);                                           // probed again: still noisy
  EXPECT_EQ(n[64], 0u);                                           // probed again: constant by now
  for (std::size_t c = 65; c < chunks; ++c) EXPECT_EQ(n[c], 0u) << c;
  EXPECT_EQ(r[64], 0u);
  for (std::size_t c = 65; c < chunks; ++c) EXPECT_EQ(r[c], 3u) << c;  // the partial one too
  for (std::size_t c = 0; c < chunks; ++c) EXPECT_EQ(g[c], 0u) << c;
  for (std::size_t c = 0; c < chunks; ++c) EXPECT_EQ(x[c], 3u) << c;  // probes grew: as they are
  const MeasurementTable back = StoreReader(path).read_group("/winners");
  for (const auto& [name, values] : columns) EXPECT_EQ(back.column(name).f64(), *values) << name;
  EXPECT_EQ(back.column("bits").i64(), bits);
}

TEST(Store, RowRangeLoadsJustThatSliceOfTheAskedColumns) {
  TempDir dir;
  const auto path = dir.file("s.h5");
  const MeasurementTable t = table_of(70000);
  write_store(path, "/tf/bert/dgx", t);
  StoreReader r(path);
  const MeasurementTable part = r.read("/tf/bert/dgx", {"time_s", "p"}, {65530, 65540});
  EXPECT_EQ(part.column_names(), (std::vector<std::string>{"time_s", "p"}));
  ASSERT_EQ(part.rows(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(part.column("time_s").f64()[i], t.column("time_s").f64()[65530 + i]);
  }
  EXPECT_EQ(r.read("/tf/bert/dgx", {"p"}, {69990}).rows(), 10u);  // end clamps
  EXPECT_THAT(
      [&] {
        r.read("/tf/bert/dgx", {"p"}, {70001, 70002});
      },
      ThrowsMessage<DataError>(HasSubstr("outside the set's 70000 rows")));
  EXPECT_THAT([&] { r.read("/tf/bert/dgx", {"nope"}); },
              ThrowsMessage<DataError>(HasSubstr("has no column 'nope'; columns: p, time_s, fw")));
  EXPECT_THAT(
      [&] { r.read("/tf/gpt"); },
      ThrowsMessage<DataError>(HasSubstr("has no set '/tf/gpt'; sets there: /tf/bert/dgx")));
}

TEST(Store, ChunkedWritesFillTheSetInPieces) {
  TempDir dir;
  const auto path = dir.file("s.h5");
  const MeasurementTable t = table_of(10);
  {
    StoreWriter w(path);
    SetWriter sw = w.create_set("/a/b",
                                {{"p", data::ColumnType::int64},
                                 {"time_s", data::ColumnType::float64},
                                 {"fw", data::ColumnType::string}},
                                30, t.attributes());
    for (std::size_t off = 0; off < 30; off += 10) sw.write(off, t);
    EXPECT_THAT([&] { sw.write(25, t); },
                ThrowsMessage<DataError>(HasSubstr("overruns the set's 30 rows")));
    w.close();
  }
  const MeasurementTable back = StoreReader(path).read("/a/b");
  ASSERT_EQ(back.rows(), 30u);
  EXPECT_EQ(back.column("p").i64()[23], t.column("p").i64()[3]);
}

TEST(Store, NotHdf5AndForeignHdf5AreClearErrors) {
  TempDir dir;
  const auto text = dir.write("x.h5", "hello, I am text\n");
  EXPECT_THAT([&] { StoreReader r(text); },
              ThrowsMessage<DataError>(HasSubstr("is not an HDF5 file")));
  const auto foreign = dir.file("foreign.h5");
  {
    hid_t f = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    H5Fclose(f);
  }
  StoreReader r(foreign);
  EXPECT_THAT([&] { r.sets(); },
              ThrowsMessage<DataError>(HasSubstr("holds no perfit measurement set")));
  EXPECT_THAT([&] { StoreReader missing(dir.file("none.h5")); },
              ThrowsMessage<IoError>(HasSubstr("does not exist")));
}

TEST(Store, SetPathsMustFollowTheConvention) {
  EXPECT_NO_THROW(validate_set_path("/pytorch/resnet50"));
  EXPECT_NO_THROW(validate_set_path("/pytorch/resnet50/dgx-a100"));
  for (const char* bad : {"pytorch/resnet50", "/pytorch", "/a/b/c/d", "/a//b", "/a/b c"}) {
    EXPECT_THAT([&] { validate_set_path(bad); },
                ThrowsMessage<ConfigError>(HasSubstr("/<framework>/<model>[/<system>]")))
        << bad;
  }
}

TEST(Store, EachSetCarriesTheChecksumOfAllItsRowsWrittenInChunks) {
  TempDir dir;
  const std::string path = dir.file("s.h5");
  data::SynthOptions o;
  o.rows = 150000;  // three chunks of the writer
  write_synthetic_store(path, o, {"/mxnet/bert"});
  StoreReader r(path);
  const data::MeasurementTable t = r.read("/mxnet/bert");
  EXPECT_EQ(data::attribute_text(r.info("/mxnet/bert").attributes.at("checksum")),
            data::table_checksum(t));
}

}  // namespace perfit::io
