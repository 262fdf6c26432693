#include "perfit/de/de_options.hpp"

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::de {

namespace {
template <class E, std::size_t N>
E parse(const std::string& s, const char* what, const std::pair<const char*, E> (&table)[N]) {
  std::string names;
  for (const auto& [n, e] : table) {
    if (s == n) return e;
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  throw ConfigError(std::string(what) + " '" + s + "' is not one of " + names);
}
template <class E, std::size_t N>
const char* name(E e, const std::pair<const char*, E> (&table)[N]) {
  for (const auto& [n, v] : table) {
    if (v == e) return n;
  }
  return "?";
}

constexpr std::pair<const char*, Strategy> kStrategies[] = {
    {"rand1bin", Strategy::rand1bin},
    {"best1bin", Strategy::best1bin},
    {"current-to-best1bin", Strategy::current_to_best1bin},
    {"rand2bin", Strategy::rand2bin},
    {"current-to-pbest1", Strategy::current_to_pbest1},
    {"shade", Strategy::shade},
    {"lshade", Strategy::lshade},
    {"jso", Strategy::jso}};
constexpr std::pair<const char*, Init> kInits[] = {
    {"uniform", Init::uniform}, {"lhs", Init::lhs}, {"sobol", Init::sobol}};
constexpr std::pair<const char*, BoundHandling> kBounds[] = {{"midpoint", BoundHandling::midpoint},
                                                             {"reflect", BoundHandling::reflect},
                                                             {"resample", BoundHandling::resample}};
}  // namespace

Strategy parse_strategy(const std::string& s) { return parse(s, "strategy", kStrategies); }
Init parse_init(const std::string& s) { return parse(s, "init", kInits); }
BoundHandling parse_bound_handling(const std::string& s) { return parse(s, "bounds", kBounds); }
const char* to_string(Strategy s) { return name(s, kStrategies); }
const char* to_string(Init i) { return name(i, kInits); }
const char* to_string(BoundHandling b) { return name(b, kBounds); }

std::size_t DeOptions::population_for(std::size_t dim) const {
  if (population > 0) return population;
  const double d = static_cast<double>(std::max<std::size_t>(dim, 1));
  switch (strategy) {
    case Strategy::jso:  // Brest et al.: 25 log(D) sqrt(D)
      return std::max<std::size_t>(
          20, static_cast<std::size_t>(std::lround(25.0 * std::log(d) * std::sqrt(d))));
    case Strategy::shade:
    case Strategy::lshade:  // Tanabe & Fukunaga: 18 D
      return std::max<std::size_t>(20, 18 * dim);
    default:  // Storn & Price: 10 D
      return std::max<std::size_t>(20, 10 * dim);
  }
}

void DeOptions::validate(std::size_t dim) const {
  if (dim == 0) throw ConfigError("nothing to optimise: the model has no params");
  const std::size_t np = population_for(dim);
  const std::size_t need = strategy == Strategy::rand2bin ? 6 : 4;
  if (np < need) {
    throw ConfigError("de.population " + std::to_string(np) + " is too small for strategy " +
                      to_string(strategy) + "; it needs at least " + std::to_string(need));
  }
  if (!(F > 0.0 && F <= 2.0)) throw ConfigError("de.F must be in (0, 2], got " + std::to_string(F));
  if (!(F_max >= 0.0 && F_max <= 2.0)) {
    throw ConfigError("de.F_max (dither upper end) must be in [0, 2], got " +
                      std::to_string(F_max));
  }
  if (!(CR >= 0.0 && CR <= 1.0))
    throw ConfigError("de.CR must be in [0, 1], got " + std::to_string(CR));
  if (!(p_best > 0.0 && p_best <= 1.0)) {
    throw ConfigError("de.p_best must be in (0, 1], got " + std::to_string(p_best));
  }
  if (!(archive_rate >= 0.0)) throw ConfigError("de.archive_rate must be >= 0");
  if (memory_size == 0) throw ConfigError("de.memory_size must be >= 1");
  if (min_population < 4) throw ConfigError("de.min_population must be >= 4");
  if (max_generations == 0) throw ConfigError("de.max_generations must be >= 1");
  if (!(tol >= 0.0) || !(atol >= 0.0)) throw ConfigError("de.tol and de.atol must be >= 0");
  if (!(max_seconds >= 0.0)) throw ConfigError("de.max_seconds must be >= 0");
  for (std::size_t k = 0; k < x0.size(); ++k) {
    if (static_cast<std::size_t>(x0[k].size()) != dim) {
      throw ConfigError("x0 seed " + std::to_string(k) + " has " + std::to_string(x0[k].size()) +
                        " values, the model has " + std::to_string(dim) + " params");
    }
  }
}

const OptionTable<DeOptions>& de_option_table() {
  using S = DeOptions;
  static const OptionTable<DeOptions> t = {
      enum_option<S>(
          "strategy", [](S & o) -> auto& { return o.strategy; },
          std::vector<Strategy>{Strategy::rand1bin, Strategy::best1bin,
                                Strategy::current_to_best1bin, Strategy::rand2bin,
                                Strategy::current_to_pbest1, Strategy::shade, Strategy::lshade,
                                Strategy::jso},
          parse_strategy, [](Strategy v) { return to_string(v); }, "mutation strategy"),
      whole_option<S>(
          "population", [](S & o) -> auto& { return o.population; }, 0, 1000000,
          "population size (0: the strategy's default for the dimension)"),
      real_option<S>(
          "F", [](S & o) -> auto& { return o.F; }, 0.0, 2.0,
          "mutation factor (classic strategies, JADE)"),
      real_option<S>(
          "F_max", [](S & o) -> auto& { return o.F_max; }, 0.0, 2.0,
          "> F: dither, F drawn from U[F, F_max] each generation (as scipy); <= F: F fixed"),
      real_option<S>(
          "CR", [](S & o) -> auto& { return o.CR; }, 0.0, 1.0,
          "crossover rate (classic strategies, JADE)"),
      real_option<S>(
          "p_best", [](S & o) -> auto& { return o.p_best; }, 0.0, 1.0,
          "top fraction for current-to-pbest (JADE, SHADE, L-SHADE)"),
      real_option<S>(
          "archive_rate", [](S & o) -> auto& { return o.archive_rate; }, 0.0, 100.0,
          "archive size / population (JADE, SHADE)"),
      whole_option<S>(
          "memory_size", [](S & o) -> auto& { return o.memory_size; }, 1, 10000,
          "success-history entries H (SHADE family)"),
      whole_option<S>(
          "min_population", [](S & o) -> auto& { return o.min_population; }, 4, 1000000,
          "floor of the L-SHADE / jSO population reduction"),
      enum_option<S>(
          "init", [](S & o) -> auto& { return o.init; },
          std::vector<Init>{Init::uniform, Init::lhs, Init::sobol}, parse_init,
          [](Init v) { return to_string(v); }, "initial population"),
      enum_option<S>(
          "bounds", [](S & o) -> auto& { return o.bounds; },
          std::vector<BoundHandling>{BoundHandling::midpoint, BoundHandling::reflect,
                                     BoundHandling::resample},
          parse_bound_handling, [](BoundHandling v) { return to_string(v); },
          "what a mutant outside the bounds becomes"),
      whole_option<S>(
          "max_generations", [](S & o) -> auto& { return o.max_generations; }, 1, 1000000000,
          "generation limit"),
      whole_option<S>(
          "max_evaluations", [](S & o) -> auto& { return o.max_evaluations; }, 0, 1000000000000ULL,
          "evaluation limit (0: none)"),
      real_option<S>(
          "target_cost", [](S & o) -> auto& { return o.target_cost; }, -INFINITY, INFINITY,
          "stop once the best cost is <= this (-inf: never)"),
      real_option<S>(
          "tol", [](S & o) -> auto& { return o.tol; }, 0.0, 1.0,
          "flat population: std(cost) <= atol + tol*|mean(cost)| stops (as scipy)"),
      real_option<S>(
          "atol", [](S & o) -> auto& { return o.atol; }, 0.0, INFINITY,
          "absolute part of the flat-population test"),
      real_option<S>(
          "max_seconds", [](S & o) -> auto& { return o.max_seconds; }, 0.0, 1e9,
          "wall-clock limit of the DE in seconds (0: none)"),
  };
  return t;
}

}  // namespace perfit::de
