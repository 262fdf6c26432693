// The `generic` model written by hand, the way an HPC programmer would for one model:
// blocked over rows, population inside, row-only quantities hoisted per block, the relative
// squared error fused in. Its own translation unit is built with -ffast-math so that glibc's
// libmvec vectorises exp/log: the strongest baseline, not a straw man.
#pragma once

#include <cstddef>

namespace perfit::bench {

// params: n_cand x 6 (c0, c1, g, c2, c3, c4), candidate-major. sums[j] += sum_i relsq.
void handwritten_generic(const double* p, const double* b, const double* d, const double* epochs,
                         const double* y, std::size_t rows, const double* params,
                         std::size_t n_cand, double* sums);

}  // namespace perfit::bench
