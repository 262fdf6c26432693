// Initial populations in the unit cube: uniform, Latin hypercube (one point per stratum in
// every dimension) or Sobol (low-discrepancy, Joe & Kuo 2008 direction numbers, randomised
// by a seeded digital shift so different seeds give different but equally even points).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "perfit/core/rng.hpp"
#include "perfit/de/de_options.hpp"

namespace perfit::de {

inline constexpr std::size_t kMaxSobolDim = 32;

// First n points (after the origin) of the unshifted Sobol sequence in dim <= kMaxSobolDim
// dimensions, one point per column. Matches scipy.stats.qmc.Sobol(dim, scramble=False).
// Throws: ConfigError if dim > kMaxSobolDim.
Eigen::MatrixXd sobol_points(std::size_t dim, std::size_t n, std::size_t skip = 1);

// dim x n initial population; x0 seeds replace the first columns.
Eigen::MatrixXd initial_population(std::size_t dim, std::size_t n, Init init,
                                   const std::vector<Eigen::VectorXd>& x0, Rng& rng);

}  // namespace perfit::de
