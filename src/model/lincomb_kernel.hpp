// The fused inner loop of the evaluator: value_i = offset + sum_k s_k * v1_k[i] * v2_k[i] *
// exp(t_k * log_k[i]) (absent factors are 1), four SIMD packets of rows at a time with the
// sums in registers, handed to an epilogue that either stores the values or folds them
// straight into the cost. Written with Eigen's packet layer, so it is AVX-512, AVX or SSE
// code as the build's -march allows, and exp is Eigen's (no -ffast-math: NaN/inf propagate).
// Private to model/.
#pragma once

#include <Eigen/Core>

// Packet types are compiler vector types (__m512d...) whose alignment attributes GCC notes
// it drops when they are template arguments, as Eigen's own headers do internally. This
// private header is included only by model/ sources that use packets.
#pragma GCC diagnostic ignored "-Wignored-attributes"

#include <cmath>
#include <cstddef>
#include <limits>

namespace perfit::model::detail {

using Packet = Eigen::internal::packet_traits<double>::type;
inline constexpr std::size_t kPacket = sizeof(Packet) / sizeof(double);

struct LinResolved {
  double s = 1.0;
  const double* v1 = nullptr;
  const double* v2 = nullptr;
  const double* log = nullptr;  // with t: factor exp(t * log[i])
  double t = 0.0;
  // Rows [lo, hi) of the block outside which a column factor is 0 (a joint fit's group
  // indicator: its group's rows), so that a sum over G groups costs one group per row, not G.
  std::size_t lo = 0, hi = static_cast<std::size_t>(-1);
};

namespace lin {
using namespace Eigen::internal;

inline double term_at(const LinResolved& r, std::size_t i) {
  double x = r.s;
  if (r.v1) x *= r.v1[i];
  if (r.v2) x *= r.v2[i];
  if (r.log) x *= std::exp(r.t * r.log[i]);
  return x;
}

template <int kKind>  // bit 0: v1, bit 1: v2, bit 2: exp
inline void add_term(const LinResolved& r, std::size_t i0, Packet* a) {
  const Packet s = pset1<Packet>(r.s);
  const Packet t = pset1<Packet>(r.t);
  for (std::size_t q = 0; q < 4; ++q) {
    const std::size_t i = i0 + q * kPacket;
    Packet x = s;
    if constexpr (kKind & 1) x = pmul(x, ploadu<Packet>(r.v1 + i));
    if constexpr (kKind & 2) x = pmul(x, ploadu<Packet>(r.v2 + i));
    if constexpr (kKind & 4) x = pmul(x, pexp(pmul(t, ploadu<Packet>(r.log + i))));
    a[q] = padd(a[q], x);
  }
}
}  // namespace lin

template <class Epilogue>
void lincomb_rows(const LinResolved* r, std::size_t nr, double offset, std::size_t n,
                  Epilogue& ep) {
  using namespace Eigen::internal;
  constexpr std::size_t kChunk = 4 * kPacket;
  int kind[32];
  for (std::size_t k = 0; k < nr; ++k) {
    kind[k] = (r[k].v1 ? 1 : 0) | (r[k].v2 ? 2 : 0) | (r[k].log ? 4 : 0);
  }
  std::size_t i0 = 0;
  for (; i0 + kChunk <= n; i0 += kChunk) {
    Packet a[4];
    for (auto& x : a) x = pset1<Packet>(offset);
    for (std::size_t k = 0; k < nr; ++k) {
      if (i0 + kChunk <= r[k].lo || i0 >= r[k].hi) continue;  // 0 on these rows
      switch (kind[k]) {
        case 0:
          lin::add_term<0>(r[k], i0, a);
          break;
        case 1:
          lin::add_term<1>(r[k], i0, a);
          break;
        case 2:
          lin::add_term<2>(r[k], i0, a);
          break;
        case 3:
          lin::add_term<3>(r[k], i0, a);
          break;
        case 4:
          lin::add_term<4>(r[k], i0, a);
          break;
        case 5:
          lin::add_term<5>(r[k], i0, a);
          break;
        case 6:
          lin::add_term<6>(r[k], i0, a);
          break;
        default:
          lin::add_term<7>(r[k], i0, a);
          break;
      }
    }
    ep.chunk(i0, a);
  }
  for (; i0 < n; ++i0) {
    double v = offset;
    for (std::size_t k = 0; k < nr; ++k) {
      if (i0 >= r[k].lo && i0 < r[k].hi) v += lin::term_at(r[k], i0);
    }
    ep.scalar(i0, v);
  }
}

// Epilogue that stores the values.
struct StoreValues {
  double* out;
  void chunk(std::size_t i0, const Packet* a) {
    for (std::size_t q = 0; q < 4; ++q) Eigen::internal::pstoreu(out + i0 + q * kPacket, a[q]);
  }
  void scalar(std::size_t i, double v) { out[i] = v; }
};

}  // namespace perfit::model::detail
