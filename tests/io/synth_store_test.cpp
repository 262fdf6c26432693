#include "perfit/io/synth_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfit/core/error.hpp"
#include "perfit/io/store_reader.hpp"
#include "support/temp_dir.hpp"

namespace perfit::io {

using testing_support::TempDir;

TEST(SynthStore, SameSeedGivesTheSameStoreContent) {
  TempDir dir;
  data::SynthOptions o;
  o.rows = 70000;  // more than one generation chunk and one HDF5 chunk
  o.seed = 5;
  write_synthetic_store(dir.file("a.h5"), o, {"/mxnet/vgg16"});
  write_synthetic_store(dir.file("b.h5"), o, {"/mxnet/vgg16"});
  o.seed = 6;
  write_synthetic_store(dir.file("c.h5"), o, {"/mxnet/vgg16"});
  const auto a = StoreReader(dir.file("a.h5")).read("/mxnet/vgg16");
  const auto b = StoreReader(dir.file("b.h5")).read("/mxnet/vgg16");
  const auto c = StoreReader(dir.file("c.h5")).read("/mxnet/vgg16");
  ASSERT_EQ(a.rows(), 70000u);
  EXPECT_EQ(a.column("time_s").f64(), b.column("time_s").f64());
  EXPECT_EQ(a.column("b").i64(), b.column("b").i64());
  EXPECT_NE(a.column("time_s").f64(), c.column("time_s").f64());
  EXPECT_EQ(a.attribute_string("truth_model"), "generic");
}

TEST(SynthStore, WritesAllNineSetsByDefault) {
  TempDir dir;
  data::SynthOptions o;
  o.rows = 10;
  const auto s = write_synthetic_store(dir.file("all.h5"), o);
  EXPECT_EQ(s.sets.size(), 9u);
  EXPECT_EQ(s.rows, 90u);
  EXPECT_EQ(StoreReader(dir.file("all.h5")).sets().size(), 9u);
}

TEST(SynthStore, UnknownSetIsRejectedWithTheChoices) {
  TempDir dir;
  EXPECT_THAT([&] { write_synthetic_store(dir.file("x.h5"), {}, {"/pytorch/gpt"}); },
              ::testing::ThrowsMessage<ConfigError>(
                  ::testing::HasSubstr("'/pytorch/gpt' is not a synthetic set; choose from:")));
}

}  // namespace perfit::io
