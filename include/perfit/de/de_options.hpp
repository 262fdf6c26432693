// Options of the differential-evolution optimiser. DE searches the unit cube [0,1]^D; the
// caller maps it to parameter units (Model::from_unit: log-aware), so bounds live elsewhere.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "perfit/core/option_table.hpp"

namespace perfit::de {

enum class Strategy {
  rand1bin,             // Storn & Price 1997
  best1bin,             // Storn & Price 1997
  current_to_best1bin,  // Storn & Price 1997
  rand2bin,             // Storn & Price 1997
  current_to_pbest1,    // JADE: Zhang & Sanderson, IEEE TEVC 13(5) 2009 (fixed F, CR)
  shade,                // Tanabe & Fukunaga, IEEE CEC 2013
  lshade,               // Tanabe & Fukunaga, IEEE CEC 2014
  jso                   // Brest, Maucec & Boskovic, IEEE CEC 2017
};
enum class Init { uniform, lhs, sobol };
enum class BoundHandling { midpoint, reflect, resample };

Strategy parse_strategy(const std::string& s);  // Throws: ConfigError listing the choices
Init parse_init(const std::string& s);
BoundHandling parse_bound_handling(const std::string& s);
const char* to_string(Strategy s);
const char* to_string(Init i);
const char* to_string(BoundHandling b);

struct DeOptions {
  Strategy strategy = Strategy::lshade;
  std::size_t population = 0;  // 0: the strategy's default for the dimension (see docs)
  double F = 0.5;              // mutation factor (classic strategies, JADE)
  // > F: dither, F drawn from U[F, F_max] each generation (scipy's default (0.5, 1): a fixed
  // F = 0.5 lets best/1/bin collapse early); <= F: F fixed.
  double F_max = 1.0;
  double CR = 0.9;                 // crossover rate (classic strategies, JADE)
  double p_best = 0.11;            // top fraction for current-to-pbest (JADE, SHADE, L-SHADE)
  double archive_rate = 1.0;       // archive size / population (JADE, SHADE; L-SHADE uses 2.6)
  std::size_t memory_size = 6;     // success-history entries H (SHADE family; jSO uses 5)
  std::size_t min_population = 4;  // floor of L-SHADE / jSO population reduction
  Init init = Init::lhs;
  BoundHandling bounds = BoundHandling::midpoint;
  std::vector<Eigen::VectorXd> x0;  // seeds in the unit cube, replacing initial individuals

  // Termination: the first that holds stops the run.
  std::size_t max_generations = 2000;
  std::size_t max_evaluations = 0;  // 0: no limit
  double target_cost = -std::numeric_limits<double>::infinity();
  double tol = 1e-8;  // flat: std(cost) <= atol + tol*|mean(cost)| (as scipy)
  double atol = 0.0;
  double max_seconds = 0.0;  // wall clock; 0: no limit

  std::uint64_t seed = 1;

  // The population size in effect for dimension dim.
  std::size_t population_for(std::size_t dim) const;
  // Throws: ConfigError naming the option.
  void validate(std::size_t dim) const;
};

// Every DeOptions field a user can set (x0 is the library's, not the user's), keys without
// the "de." prefix.
const OptionTable<DeOptions>& de_option_table();

}  // namespace perfit::de
