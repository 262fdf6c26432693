#include "perfit/data/synth.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::data {

TEST(Synth, CatalogueHasThreeFrameworksTimesThreeModels) {
  const auto c = synth_catalogue();
  ASSERT_EQ(c.size(), 9u);
  EXPECT_EQ(c.front().path(), "/tensorflow/resnet50");
  EXPECT_EQ(c.back().path(), "/pytorch/bert");
}

TEST(Synth, SameSeedSameRowsWhateverTheChunking) {
  SynthOptions o;
  o.rows = 1000;
  o.seed = 9;
  const auto spec = synth_catalogue()[4];
  SynthGenerator a(spec, o, 4), b(spec, o, 4);
  const MeasurementTable whole = a.next_chunk(1000);
  MeasurementTable parts = b.next_chunk(300);
  while (b.rows_left() > 0) parts.append(b.next_chunk(333));
  ASSERT_EQ(parts.rows(), 1000u);
  EXPECT_EQ(whole.column("time_s").f64(), parts.column("time_s").f64());
  EXPECT_EQ(whole.column("p").i64(), parts.column("p").i64());
  o.seed = 10;
  SynthGenerator c(spec, o, 4);
  EXPECT_NE(whole.column("time_s").f64(), c.next_chunk(1000).column("time_s").f64());
}

TEST(Synth, ZeroNoiseReproducesTheTruthAndGridsAreRealistic) {
  SynthOptions o;
  o.rows = 2000;
  o.noise = 0.0;
  const auto spec = synth_catalogue()[0];
  SynthGenerator g(spec, o, 0);
  const MeasurementTable t = g.next_chunk(5000);
  ASSERT_EQ(t.rows(), 2000u);
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const double p = t.column("p").i64()[i], b = t.column("b").i64()[i];
    ASSERT_TRUE(p >= 1 && p <= 1024 && std::exp2(std::round(std::log2(p))) == p);
    ASSERT_TRUE(b >= 16 && b <= 1024);
    ASSERT_EQ(t.column("nodes").i64()[i], static_cast<std::int64_t>(std::ceil(p / 8.0)));
    const double truth =
        generic_time(spec.truth, p, b, t.column("d").i64()[i], t.column("epochs").i64()[i]);
    ASSERT_DOUBLE_EQ(t.column("time_s").f64()[i], truth);
  }
}

TEST(Synth, NoiseIsLogNormalWithTheAskedSigma) {
  SynthOptions o;
  o.rows = 20000;
  o.noise = 0.05;
  const auto spec = synth_catalogue()[2];
  SynthGenerator g(spec, o, 2);
  const MeasurementTable t = g.next_chunk(o.rows);
  double s = 0, s2 = 0;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const double truth = generic_time(spec.truth, t.column("p").i64()[i], t.column("b").i64()[i],
                                      t.column("d").i64()[i], t.column("epochs").i64()[i]);
    const double e = std::log(t.column("time_s").f64()[i] / truth);
    s += e;
    s2 += e * e;
  }
  EXPECT_NEAR(s / o.rows, 0.0, 0.002);
  EXPECT_NEAR(std::sqrt(s2 / o.rows), 0.05, 0.002);
}

TEST(Synth, AttributesCarryTheTruth) {
  SynthOptions o;
  SynthGenerator g(synth_catalogue()[0], o, 0);
  const Attributes a = g.attributes();
  EXPECT_EQ(std::get<std::string>(a.at("truth_model")), "generic");
  EXPECT_EQ(std::get<double>(a.at("truth_g")), synth_catalogue()[0].truth.g);
  EXPECT_EQ(std::get<std::string>(a.at("target")), "time_s");
}

TEST(Synth, BadOptionsAreRejectedByName) {
  SynthOptions o;
  o.noise = -1;
  EXPECT_THAT([&] { o.validate(); },
              ::testing::ThrowsMessage<ConfigError>(::testing::HasSubstr("--noise")));
}

}  // namespace perfit::data
