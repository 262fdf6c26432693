// Random numbers for everything perfit draws (synthetic noise, DE sampling). xoshiro256++
// (Blackman & Vigna 2018): fast, and its whole state is four words, so checkpoints can store
// it and a resumed run continues the exact same stream. std:: distributions are avoided because
// their output differs between standard libraries; the ones here are bit-identical everywhere.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace perfit {

class Rng {
 public:
  using State = std::array<std::uint64_t, 4>;

  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }

  // Seeds through splitmix64 so that nearby seeds give unrelated streams.
  void reseed(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }

  // A stream derived from this seed and a key (island, set, chunk...): independent streams
  // without sharing one generator across threads or ranks.
  static Rng derive(std::uint64_t seed, std::uint64_t key) {
    std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * (key + 1));
    return Rng(splitmix64(x));
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is irrelevant here).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<U128>(next()) * n) >> 64);
  }

  // Standard normal by Box-Muller. The second value is discarded on purpose: a cached spare
  // would be hidden state that state() could not capture.
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

  // Full state, for checkpoints. set_state(state()) continues the same stream.
  State state() const { return s_; }
  void set_state(const State& s) { s_ = s; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  State s_{};
};

}  // namespace perfit
