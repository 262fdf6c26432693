#include "perfit/data/synth.hpp"

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::data {

double generic_time(const GenericTruth& t, double p, double b, double d, double epochs) {
  const double iterations = epochs * d / (b * p);
  const double per_iter =
      t.c1 * std::pow(b, t.g) + t.c2 + t.c3 * std::log2(p) + t.c4 * (p - 1.0) / p;
  return t.c0 + iterations * per_iter;
}

std::vector<SynthSetSpec> synth_catalogue() {
  // Per DL model: samples in the data set and compute/communication character
  // (ResNet-50: ImageNet, 25M params; VGG-16: ImageNet, 138M params, communication heavy;
  // BERT: Wikipedia sequences, 110M params, compute heavy per sample).
  struct ModelBase {
    const char* name;
    double dataset_size;
    GenericTruth t;
  };
  const ModelBase models[] = {
      {"resnet50", 1.28e6, {45.0, 2.2e-3, 0.92, 8.0e-3, 1.5e-3, 4.0e-2}},
      {"vgg16", 1.28e6, {60.0, 4.5e-3, 0.95, 1.2e-2, 2.0e-3, 2.2e-1}},
      {"bert", 4.0e5, {120.0, 9.0e-3, 0.88, 2.0e-2, 2.5e-3, 1.8e-1}},
  };
  // Per framework: scale factors on compute, overhead and communication (fixed, documented,
  // deliberately different so each set has its own truth).
  struct FrameworkScale {
    const char* name;
    double start, compute, overhead, latency, bandwidth;
  };
  const FrameworkScale frameworks[] = {
      {"tensorflow", 1.3, 1.00, 1.2, 1.1, 1.00},
      {"mxnet", 0.8, 1.05, 0.9, 1.3, 0.85},
      {"pytorch", 1.0, 0.95, 1.0, 1.0, 0.90},
  };
  std::vector<SynthSetSpec> out;
  for (const auto& f : frameworks) {
    for (const auto& m : models) {
      GenericTruth t = m.t;
      t.c0 *= f.start;
      t.c1 *= f.compute;
      t.c2 *= f.overhead;
      t.c3 *= f.latency;
      t.c4 *= f.bandwidth;
      out.push_back({f.name, m.name, m.dataset_size, t});
    }
  }
  return out;
}

void SynthOptions::validate() const {
  if (rows == 0) throw ConfigError("--rows must be at least 1, got 0");
  if (!(noise >= 0.0) || !std::isfinite(noise) || noise > 1.0) {
    throw ConfigError("--noise must be in [0, 1] (sigma of log-normal noise), got " +
                      std::to_string(noise));
  }
}

SynthGenerator::SynthGenerator(SynthSetSpec spec, const SynthOptions& options,
                               std::uint64_t set_index)
    : spec_(std::move(spec)), options_(options), rng_(Rng::derive(options.seed, set_index)) {
  options_.validate();
}

MeasurementTable SynthGenerator::next_chunk(std::size_t max_rows) {
  static constexpr std::int64_t kEpochs[] = {1, 2, 5};
  static constexpr double kDataFractions[] = {0.25, 0.5, 1.0};
  const std::size_t n = std::min(max_rows, rows_left());
  std::vector<std::int64_t> p(n), nodes(n), b(n), d(n), epochs(n);
  std::vector<double> time(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = std::int64_t{1} << rng_.below(11);  // 1..1024
    b[i] = std::int64_t{16} << rng_.below(7);  // 16..1024
    d[i] = static_cast<std::int64_t>(spec_.dataset_size * kDataFractions[rng_.below(3)]);
    epochs[i] = kEpochs[rng_.below(3)];
    nodes[i] = (p[i] + kGpusPerNode - 1) / kGpusPerNode;
    const double truth =
        generic_time(spec_.truth, static_cast<double>(p[i]), static_cast<double>(b[i]),
                     static_cast<double>(d[i]), static_cast<double>(epochs[i]));
    time[i] = truth * std::exp(options_.noise * rng_.normal());
  }
  produced_ += n;
  MeasurementTable t;
  t.add_column(Column("p", std::move(p)));
  t.add_column(Column("nodes", std::move(nodes)));
  t.add_column(Column("b", std::move(b)));
  t.add_column(Column("d", std::move(d)));
  t.add_column(Column("epochs", std::move(epochs)));
  t.add_column(Column("time_s", std::move(time)));
  return t;
}

Attributes SynthGenerator::attributes() const {
  Attributes a;
  a["target"] = std::string("time_s");
  a["unit"] = std::string("s");
  a["framework"] = spec_.framework;
  a["model"] = spec_.model;
  a["system"] = std::string("synthetic-8gpu-nodes");
  a["source"] = std::string("perfit synth (generic model truth, log-normal noise)");
  a["synth_seed"] = static_cast<std::int64_t>(options_.seed);
  a["synth_noise"] = options_.noise;
  a["truth_model"] = std::string("generic");
  const GenericTruth& t = spec_.truth;
  const double values[] = {t.c0, t.c1, t.g, t.c2, t.c3, t.c4};
  for (std::size_t i = 0; i < kGenericParamNames.size(); ++i) {
    a[std::string("truth_") + kGenericParamNames[i]] = values[i];
  }
  return a;
}

}  // namespace perfit::data
