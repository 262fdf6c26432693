// How strongly a joint fit draws each pooled constant toward its common value, by empirical
// Bayes (the penalised form of a random-effects model): the groups' constants are fitted
// independently first; a constant on which the groups agree (their robust spread tau, relative
// to its typical size, is small against the noise) is drawn hard toward the common value, one
// on which they differ is left nearly free. With residual variance sigma^2 over N rows the
// penalty strength * sum_g ((x_g - mean)/scale)^2 is the random effect's prior when
// strength = sigma^2 / (N tau^2). A group whose own rows hardly determine a constant then gets
// the others' value, with the spread the others show (docs/joint.md).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "perfit/de/fit_options.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::job {

// The empirical-Bayes strengths are then checked where pooling matters: each of up to 4 groups
// measured at 4 or more scales is fitted from its two smallest scales (and every other group's
// rows), its larger scales held out, for the strengths times each of these multipliers (0:
// independent); the best multiplier is used.
std::vector<double> pool_strength_multipliers();

// Every group fitted alone (the first step of choosing the strengths, and a joint search's start).
struct Alone {
  std::vector<std::string> names;  // the base model's params
  std::vector<Eigen::VectorXd>
      params;          // per group (1..G at 0..G-1), in that order; NaN: its fit failed
  double noise = 0.0;  // the mean cost over the rows of the groups that fitted
  std::size_t rows = 0;
  // The groups' median value of a constant, group `skip` (1-based; 0: none) left out; NaN if none
  // fitted.
  double median_of(const std::string& constant, std::size_t skip = 0) const;
};

struct PoolChoice {
  std::vector<model::PoolStrength> pooled;  // per pooled constant: its strength and scale
  std::string how;                          // in words: given, or the noise and spreads used
  Alone alone;
};

// The params of m (a model over the groups) where every group was fitted alone: a group's
// copy of a constant its own value, a shared constant (and the copies of group `skip`, 1-based,
// and of a group whose fit failed) the groups' median, within the bounds.
Eigen::VectorXd joint_start(const model::Model& m, const Alone& alone, std::size_t skip = 0);

// `base`: the bound spec before the groups; `problem`: its rows over the groups (this rank's
// slice; its model unused); `given`: one strength for every pooled constant, NaN to choose.
// Collective over layout.world. Throws: perfit::Error from a fit.
PoolChoice choose_pool_strength(const model::ModelSpec& base, std::size_t n_groups,
                                const model::ConstantKinds& kinds, const fit::FitProblem& problem,
                                double given, const de::FitOptions& options,
                                const island::IslandLayout& layout);

}  // namespace perfit::job
