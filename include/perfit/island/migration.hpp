// Migration between islands: which individuals leave (emigrant policy) and whom arrivals
// replace (replacement policy). Pure functions on a DE state; the random choices use an RNG
// derived from (seed, island, epoch), never the DE's own stream, so migration does not
// perturb the optimiser's sequence and every rank of an island decides identically.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "perfit/core/rng.hpp"
#include "perfit/de/optimizer.hpp"

namespace perfit::island {

enum class EmigrantPolicy { best, random, tournament };
enum class ReplacePolicy { worst, random_non_best, fair };
EmigrantPolicy parse_emigrant_policy(const std::string& s);  // Throws: ConfigError
ReplacePolicy parse_replace_policy(const std::string& s);
const char* to_string(EmigrantPolicy p);
const char* to_string(ReplacePolicy p);

// k migrants packed as k x (1 + D) doubles: cost, then the unit-cube position.
std::vector<double> select_emigrants(const de::DeState& s, std::size_t k, EmigrantPolicy policy,
                                     Rng& rng);

// Applies packed migrants (any number of k-blocks) to the population; returns how many
// replaced an individual. worst: replace the worst, one each; random_non_best: replace a
// random individual other than the best; fair: replace the current worst only if the migrant
// is better. Adaptive state (memories, archive) is kept.
std::size_t accept_immigrants(de::DeState& s, const std::vector<double>& packed, std::size_t dim,
                              ReplacePolicy policy, Rng& rng);

}  // namespace perfit::island
