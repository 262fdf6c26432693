#include "perfit/de/initialization.hpp"

#include <algorithm>
#include <numeric>

#include "perfit/core/error.hpp"

namespace perfit::de {

namespace {

struct Direction {
  unsigned s, a;
  unsigned m[8];
};
// new-joe-kuo-6.21201, dimensions 2..32 (dimension 1 is the van der Corput sequence).
constexpr Direction kJoeKuo[] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
    {7, 7, {1, 1, 3, 13, 7, 35, 63}},
    {7, 8, {1, 3, 5, 9, 1, 25, 53}},
    {7, 14, {1, 3, 1, 13, 9, 35, 107}},
    {7, 19, {1, 3, 1, 5, 27, 61, 31}},
    {7, 21, {1, 1, 5, 11, 19, 41, 61}},
    {7, 28, {1, 3, 5, 3, 3, 13, 69}},
    {7, 31, {1, 1, 7, 13, 1, 19, 1}},
    {7, 32, {1, 3, 7, 5, 13, 19, 59}},
    {7, 37, {1, 1, 3, 9, 25, 29, 41}},
    {7, 41, {1, 3, 5, 13, 23, 1, 55}},
    {7, 42, {1, 3, 7, 3, 13, 59, 17}},
};
constexpr unsigned kBits = 32;

std::vector<std::uint32_t> directions(std::size_t dim) {
  std::vector<std::uint32_t> v(kBits + 1, 0);
  if (dim == 0) {
    for (unsigned k = 1; k <= kBits; ++k) v[k] = 1u << (kBits - k);
    return v;
  }
  const Direction& d = kJoeKuo[dim - 1];
  for (unsigned k = 1; k <= kBits; ++k) {
    if (k <= d.s) {
      v[k] = d.m[k - 1] << (kBits - k);
    } else {
      v[k] = v[k - d.s] ^ (v[k - d.s] >> d.s);
      for (unsigned i = 1; i < d.s; ++i) {
        if ((d.a >> (d.s - 1 - i)) & 1u) v[k] ^= v[k - i];
      }
    }
  }
  return v;
}

}  // namespace

Eigen::MatrixXd sobol_points(std::size_t dim, std::size_t n, std::size_t skip) {
  if (dim > kMaxSobolDim) {
    throw ConfigError("Sobol initialisation supports up to " + std::to_string(kMaxSobolDim) +
                      " params, the model has " + std::to_string(dim) + "; use init: lhs");
  }
  std::vector<std::vector<std::uint32_t>> v(dim);
  for (std::size_t j = 0; j < dim; ++j) v[j] = directions(j);
  std::vector<std::uint32_t> x(dim, 0);
  Eigen::MatrixXd out(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < skip + n; ++i) {
    if (i > 0) {
      // Gray-code order: flip the direction of the rightmost zero bit of i-1.
      std::size_t c = 1, value = i - 1;
      while (value & 1u) {
        value >>= 1;
        ++c;
      }
      for (std::size_t j = 0; j < dim; ++j) x[j] ^= v[j][c];
    }
    if (i >= skip) {
      for (std::size_t j = 0; j < dim; ++j) {
        out(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i - skip)) =
            static_cast<double>(x[j]) / 4294967296.0;
      }
    }
  }
  return out;
}

Eigen::MatrixXd initial_population(std::size_t dim, std::size_t n, Init init,
                                   const std::vector<Eigen::VectorXd>& x0, Rng& rng) {
  const auto d = static_cast<Eigen::Index>(dim), np = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd pop(d, np);
  switch (init) {
    case Init::uniform:
      for (Eigen::Index j = 0; j < np; ++j) {
        for (Eigen::Index i = 0; i < d; ++i) pop(i, j) = rng.uniform();
      }
      break;
    case Init::lhs: {
      std::vector<std::size_t> perm(n);
      for (Eigen::Index i = 0; i < d; ++i) {
        std::iota(perm.begin(), perm.end(), 0);
        for (std::size_t k = n; k > 1; --k) std::swap(perm[k - 1], perm[rng.below(k)]);
        for (Eigen::Index j = 0; j < np; ++j) {
          pop(i, j) = (static_cast<double>(perm[static_cast<std::size_t>(j)]) + rng.uniform()) /
                      static_cast<double>(n);
        }
      }
      break;
    }
    case Init::sobol: {
      pop = sobol_points(dim, n);
      for (Eigen::Index i = 0; i < d; ++i) {  // random digital shift (Cranley-Patterson)
        const double shift = rng.uniform();
        for (Eigen::Index j = 0; j < np; ++j) {
          const double v = pop(i, j) + shift;
          pop(i, j) = v >= 1.0 ? v - 1.0 : v;
        }
      }
      break;
    }
  }
  for (std::size_t k = 0; k < x0.size() && k < n; ++k) {
    pop.col(static_cast<Eigen::Index>(k)) = x0[k].cwiseMax(0.0).cwiseMin(1.0);
  }
  return pop;
}

}  // namespace perfit::de
