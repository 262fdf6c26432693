// Deflated numeric chunks read and inflated by libdeflate: every value as HDF5's own filter
// pipeline reads it (integers converted to doubles alike), wherever the rows start and end, and
// whatever this path does not know left to HDF5. The reader is private to io/.
#include "../../src/io/inflated_chunks.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <libdeflate.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "support/temp_dir.hpp"

namespace perfit::io::detail {
namespace {

using testing_support::TempDir;

constexpr hsize_t kChunk = 1000, kRows = 4500;  // the last chunk holds 500 rows

enum class Filters { deflate, shuffle_deflate, fletcher_deflate, none };

// A 1-D dataset of `rows` (chunked by kChunk unless contiguous) written through HDF5's pipeline.
hid_t make(hid_t file, const char* name, hid_t type, Filters filters, const void* values,
           hid_t mem_type, bool contiguous = false, hsize_t rows = kRows) {
  const hid_t space = H5Screate_simple(1, &rows, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (!contiguous) {
    H5Pset_chunk(dcpl, 1, &kChunk);
    if (filters == Filters::fletcher_deflate) H5Pset_fletcher32(dcpl);
    if (filters == Filters::shuffle_deflate) H5Pset_shuffle(dcpl);
    if (filters != Filters::none) H5Pset_deflate(dcpl, 6);
  }
  const hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (values) {
    EXPECT_GE(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  return d;
}

template <typename T>
std::vector<T> hdf5_reads(hid_t d, hid_t mem_type, hsize_t first, hsize_t n) {
  std::vector<T> out(n);
  const hid_t fspace = H5Dget_space(d), mspace = H5Screate_simple(1, &n, nullptr);
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, nullptr, &n, nullptr);
  EXPECT_GE(H5Dread(d, mem_type, mspace, fspace, H5P_DEFAULT, out.data()), 0);
  H5Sclose(mspace);
  H5Sclose(fspace);
  return out;
}

template <typename T>
void expect_reads_as_hdf5(hid_t d, hid_t mem_type, const char* what) {
  const std::pair<hsize_t, hsize_t> ranges[] = {{0, kRows},   {1, 998},    {999, 2},  {2000, 1000},
                                                {4499, 1},    {3999, 501}, {1500, 2}, {0, 0},
                                                {3500, 1000}, {10, 4480}};
  for (const auto& [first, n] : ranges) {
    std::vector<T> got(n, T{7});
    ASSERT_TRUE(read_inflated(d, first, n, got.data())) << what << " rows " << first << "+" << n;
    const std::vector<T> want = hdf5_reads<T>(d, mem_type, first, n);
    if (n > 0) {  // bit for bit: NaN too (memcmp of no rows would be passed null pointers)
      EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(T)), 0)
          << what << " rows " << first << "+" << n;
    }
  }
}

struct Values {
  std::vector<std::int64_t> ints;
  std::vector<double> doubles;
};

// Integers past 2^53 (rounded when converted), negatives, extremes; doubles with NaN, inf, -0.
Values values() {
  std::mt19937_64 rng(11);
  Values v;
  for (hsize_t i = 0; i < kRows; ++i) {
    const std::uint64_t r = rng();
    v.ints.push_back(i % 3 == 0   ? static_cast<std::int64_t>(r)
                     : i % 3 == 1 ? static_cast<std::int64_t>(i % 64)
                                  : -static_cast<std::int64_t>(r >> 11));
    v.doubles.push_back(i % 5 == 0 ? std::ldexp(static_cast<double>(r >> 11), -40)
                                   : static_cast<double>(i % 7) / 8.0);
  }
  v.ints[1] = std::numeric_limits<std::int64_t>::min();
  v.ints[4] = std::numeric_limits<std::int64_t>::max();
  v.ints[7] = (std::int64_t{1} << 53) + 1;
  v.doubles[1] = std::numeric_limits<double>::quiet_NaN();
  v.doubles[2] = std::numeric_limits<double>::infinity();
  v.doubles[3] = -0.0;
  return v;
}

// One file of the test's datasets, closed at the end.
class InflatedChunks : public ::testing::Test {
 protected:
  ~InflatedChunks() override { H5Fclose(f); }
  TempDir tmp;
  const Values v = values();
  const hid_t f = H5Fcreate(tmp.file("c.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
};

TEST_F(InflatedChunks, ReadWhatHdf5sFilterPipelineReadsWhereverTheRowsStartAndEnd) {
  for (const Filters filters : {Filters::shuffle_deflate, Filters::deflate}) {
    const std::string tag = filters == Filters::deflate ? "deflate" : "shuffle+deflate";
    const hid_t ints =
        make(f, ("i " + tag).c_str(), H5T_STD_I64LE, filters, v.ints.data(), H5T_NATIVE_INT64);
    const hid_t doubles =
        make(f, ("d " + tag).c_str(), H5T_IEEE_F64LE, filters, v.doubles.data(), H5T_NATIVE_DOUBLE);
    expect_reads_as_hdf5<std::int64_t>(ints, H5T_NATIVE_INT64, ("int64 " + tag).c_str());
    expect_reads_as_hdf5<double>(ints, H5T_NATIVE_DOUBLE, ("int64 as double " + tag).c_str());
    expect_reads_as_hdf5<double>(doubles, H5T_NATIVE_DOUBLE, ("double " + tag).c_str());
    H5Dclose(ints);
    H5Dclose(doubles);
  }
}

// As perfit's writer stores chunks that hardly deflate (io/deflated_chunks.hpp), and as other
// writers may: a chunk's filter mask says which filters were skipped.
TEST_F(InflatedChunks, ReadChunksStoredWithSomeOrAllFiltersSkipped) {
  const hid_t d =
      make(f, "d", H5T_IEEE_F64LE, Filters::shuffle_deflate, v.doubles.data(), H5T_NATIVE_DOUBLE);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(v.doubles.data());
  std::vector<unsigned char> shuffled(kChunk * 8), deflated(kChunk * 16);
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  for (const std::uint32_t mask : {1u, 2u, 3u}) {  // chunks 1, 2, 3
    const unsigned char* in = bytes + mask * kChunk * 8;
    for (std::size_t b = 0; b < 8; ++b)
      for (std::size_t e = 0; e < kChunk; ++e) shuffled[b * kChunk + e] = in[e * 8 + b];
    const unsigned char* stored = mask & 1u ? in : shuffled.data();  // shuffle skipped
    std::size_t size = kChunk * 8;
    if (!(mask & 2u)) {
      size = libdeflate_zlib_compress(c, stored, kChunk * 8, deflated.data(), deflated.size());
      stored = deflated.data();
    }
    const hsize_t at = mask * kChunk;
    ASSERT_GE(H5Dwrite_chunk(d, H5P_DEFAULT, mask, &at, size, stored), 0);
  }
  libdeflate_free_compressor(c);
  expect_reads_as_hdf5<double>(d, H5T_NATIVE_DOUBLE, "chunks 1-3 with skipped filters");
  H5Dclose(d);
}

TEST_F(InflatedChunks, LeaveToHdf5WhatTheyDoNotKnow) {
  std::vector<double> out(kRows);
  std::vector<std::int64_t> ints(kRows);
  const auto refused = [&](hid_t d, const char* what) {
    EXPECT_FALSE(read_inflated(d, 0, kRows, out.data())) << what;
    EXPECT_EQ(H5Eget_num(H5E_DEFAULT), 0) << what << ": HDF5's error stack left behind";
    H5Dclose(d);
  };
  const auto d = [&](const char* name, hid_t type, Filters filters, bool contiguous = false) {
    return make(f, name, type, filters, v.doubles.data(), H5T_NATIVE_DOUBLE, contiguous);
  };
  refused(d("contiguous", H5T_IEEE_F64LE, Filters::none, true), "contiguous");
  refused(d("no filter", H5T_IEEE_F64LE, Filters::none), "chunked without a filter");
  refused(d("fletcher", H5T_IEEE_F64LE, Filters::fletcher_deflate), "fletcher32 and deflate");
  refused(d("float32", H5T_IEEE_F32LE, Filters::deflate), "float32");
  refused(d("big-endian", H5T_IEEE_F64BE, Filters::deflate), "big-endian doubles");
  refused(d("int32", H5T_STD_I32LE, Filters::deflate), "int32");
  const hid_t doubles = d("doubles", H5T_IEEE_F64LE, Filters::deflate);
  EXPECT_FALSE(read_inflated(doubles, 0, kRows, ints.data())) << "doubles asked as integers";
  H5Dclose(doubles);
  refused(make(f, "unwritten", H5T_IEEE_F64LE, Filters::deflate, nullptr, 0), "never written");
  const auto with_chunk = [&](const char* name, std::uint32_t mask, std::vector<unsigned char> c) {
    const hid_t w = d(name, H5T_IEEE_F64LE, Filters::deflate);
    const hsize_t at = 2 * kChunk;
    EXPECT_GE(H5Dwrite_chunk(w, H5P_DEFAULT, mask, &at, c.size(), c.data()), 0);
    return w;
  };
  refused(with_chunk("damaged", 0, std::vector<unsigned char>(900, 0x5a)), "a damaged chunk");
  refused(with_chunk("short", 1, std::vector<unsigned char>(kChunk * 4)), "a raw chunk, short");
  libdeflate_compressor* c = libdeflate_alloc_compressor(1);
  const auto deflated = [&](std::size_t rows) {
    std::vector<unsigned char> z(kChunk * 16);
    z.resize(libdeflate_zlib_compress(c, v.doubles.data(), rows * 8, z.data(), z.size()));
    return z;
  };
  refused(with_chunk("half", 0, deflated(kChunk / 2)), "a chunk that inflates to half its rows");
  // Whole and sound, but marked as skipping a filter the dataset does not have.
  refused(with_chunk("unknown mask", 2, deflated(kChunk)), "filter 2 off");
  libdeflate_free_compressor(c);
}

}  // namespace
}  // namespace perfit::io::detail
