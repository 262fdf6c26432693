// Synthetic measurement sets with a known truth, so that fits can be checked against it.
// Every set follows perfit's `generic` model (docs/models.md):
//   time = c0 + epochs*d/(b*p) * (c1*b^g + c2 + c3*log2(p) + c4*(p-1)/p)
// on a grid of workers p (1..1024, powers of two), per-worker batch b (16..1024), data sizes d
// and epochs, times multiplicative log-normal noise exp(noise*z). Rows are produced in chunks
// so that 1e7-row sets are written with bounded memory.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "perfit/core/rng.hpp"
#include "perfit/data/measurement_table.hpp"

namespace perfit::data {

// Truth of the generic model, in the order c0, c1, g, c2, c3, c4.
struct GenericTruth {
  double c0;  // s, fixed start-up (launch, graph build, data loader warm-up)
  double c1;  // s per sample^g, compute
  double g;   // batch-efficiency exponent (< 1: larger batches use the device better)
  double c2;  // s per iteration, overhead (optimizer step, host-device sync, I/O)
  double c3;  // s per iteration per log2(p), all-reduce latency (tree/recursive doubling)
  double c4;  // s per iteration at p -> inf, all-reduce bandwidth ((p-1)/p of ring traffic)
};
inline constexpr std::array<const char*, 6> kGenericParamNames = {"c0", "c1", "g",
                                                                  "c2", "c3", "c4"};

// The generic model written out by hand: the reference the evaluator is tested against.
double generic_time(const GenericTruth& t, double p, double b, double d, double epochs);

struct SynthSetSpec {
  std::string framework;  // tensorflow, mxnet, pytorch
  std::string model;      // resnet50, vgg16, bert
  double dataset_size;    // samples in the full data set; d takes fractions of it
  GenericTruth truth;
  std::string path() const { return "/" + framework + "/" + model; }
};

// The 9 built-in sets: 3 frameworks x 3 DL models.
std::vector<SynthSetSpec> synth_catalogue();

struct SynthOptions {
  // Per set. 1e5 rows at 1% noise let a fit of `generic` recover every constant within 1%;
  // at 2e4 the statistical error of the overhead and latency constants is 1.2-1.4%.
  std::size_t rows = 100000;
  std::uint64_t seed = 1;
  double noise = 0.02;  // sigma of the log-normal noise; 0 gives exact truth
  // Throws: ConfigError naming the bad option.
  void validate() const;
};

// Produces one set's rows chunk by chunk; deterministic for (spec, options).
class SynthGenerator {
 public:
  SynthGenerator(SynthSetSpec spec, const SynthOptions& options, std::uint64_t set_index);

  std::size_t rows_left() const { return options_.rows - produced_; }
  // Next min(max_rows, rows_left()) rows: p, nodes, b, d, epochs (int64) and time_s (float64).
  MeasurementTable next_chunk(std::size_t max_rows);
  // Attributes of the set: target, unit, provenance and truth_*.
  Attributes attributes() const;

  static constexpr int kGpusPerNode = 8;

 private:
  SynthSetSpec spec_;
  SynthOptions options_;
  Rng rng_;
  std::size_t produced_ = 0;
};

}  // namespace perfit::data
