#include "handwritten_generic.hpp"

#include <cmath>

namespace perfit::bench {

void handwritten_generic(const double* p, const double* b, const double* d, const double* epochs,
                         const double* y, std::size_t rows, const double* params,
                         std::size_t n_cand, double* sums) {
  constexpr std::size_t kBlock = 256;
  double iter[kBlock], logb[kBlock], l2p[kBlock], pm1p[kBlock], inv_y[kBlock];
  for (std::size_t r0 = 0; r0 < rows; r0 += kBlock) {
    const std::size_t n = rows - r0 < kBlock ? rows - r0 : kBlock;
    for (std::size_t i = 0; i < n; ++i) {
      iter[i] = epochs[r0 + i] * d[r0 + i] / (b[r0 + i] * p[r0 + i]);
      logb[i] = std::log(b[r0 + i]);
      l2p[i] = std::log2(p[r0 + i]);
      pm1p[i] = (p[r0 + i] - 1.0) / p[r0 + i];
      inv_y[i] = 1.0 / y[r0 + i];
    }
    for (std::size_t j = 0; j < n_cand; ++j) {
      const double* c = params + 6 * j;
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (std::size_t i = 0; i < n; ++i) {
        const double t = c[0] + iter[i] * (c[1] * std::exp(c[2] * logb[i]) + c[3] + c[4] * l2p[i] +
                                           c[5] * pm1p[i]);
        const double e = t * inv_y[i] - 1.0;
        s += e * e;
      }
      sums[j] += s;
    }
  }
}

}  // namespace perfit::bench
