// Rows of one set of perfit's synthetic catalogue (data/synth.hpp), in memory, with its
// attributes (target, truth): the fixtures of tests that fit.
#pragma once

#include "perfit/data/synth.hpp"

namespace perfit::testing_support {

inline data::MeasurementTable synth_set(std::size_t spec_index, std::size_t rows, double noise,
                                        std::uint64_t seed) {
  data::SynthOptions o;
  o.rows = rows;
  o.noise = noise;
  o.seed = seed;
  data::SynthGenerator g(data::synth_catalogue()[spec_index], o, spec_index);
  data::MeasurementTable t = g.next_chunk(rows);
  t.attributes() = g.attributes();
  return t;
}

}  // namespace perfit::testing_support
