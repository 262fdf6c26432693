#include "perfit/island/migration.hpp"

#include <algorithm>
#include <numeric>

#include "perfit/core/error.hpp"

namespace perfit::island {

namespace {
constexpr std::pair<const char*, EmigrantPolicy> kEmigrants[] = {
    {"best", EmigrantPolicy::best},
    {"random", EmigrantPolicy::random},
    {"tournament", EmigrantPolicy::tournament}};
constexpr std::pair<const char*, ReplacePolicy> kReplace[] = {
    {"worst", ReplacePolicy::worst},
    {"random", ReplacePolicy::random_non_best},
    {"fair", ReplacePolicy::fair}};

std::vector<std::size_t> by_cost(const de::DeState& s) {
  std::vector<std::size_t> order(static_cast<std::size_t>(s.cost.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.cost(static_cast<Eigen::Index>(a)) < s.cost(static_cast<Eigen::Index>(b));
  });
  return order;
}
}  // namespace

EmigrantPolicy parse_emigrant_policy(const std::string& s) {
  for (const auto& [n, p] : kEmigrants) {
    if (s == n) return p;
  }
  throw ConfigError("emigrant policy '" + s + "' is not one of best, random, tournament");
}
ReplacePolicy parse_replace_policy(const std::string& s) {
  for (const auto& [n, p] : kReplace) {
    if (s == n) return p;
  }
  throw ConfigError("replacement policy '" + s + "' is not one of worst, random, fair");
}
const char* to_string(EmigrantPolicy p) {
  for (const auto& [n, v] : kEmigrants) {
    if (v == p) return n;
  }
  return "?";
}
const char* to_string(ReplacePolicy p) {
  for (const auto& [n, v] : kReplace) {
    if (v == p) return n;
  }
  return "?";
}

std::vector<double> select_emigrants(const de::DeState& s, std::size_t k, EmigrantPolicy policy,
                                     Rng& rng) {
  const std::size_t np = static_cast<std::size_t>(s.cost.size());
  k = std::min(k, np);
  std::vector<std::size_t> chosen;
  switch (policy) {
    case EmigrantPolicy::best: {
      const auto order = by_cost(s);
      chosen.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
    case EmigrantPolicy::random:
      for (std::size_t i = 0; i < k; ++i) chosen.push_back(rng.below(np));
      break;
    case EmigrantPolicy::tournament:  // binary tournament: the better of two random ones
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t a = rng.below(np), b = rng.below(np);
        chosen.push_back(
            s.cost(static_cast<Eigen::Index>(a)) <= s.cost(static_cast<Eigen::Index>(b)) ? a : b);
      }
      break;
  }
  const auto dim = static_cast<std::size_t>(s.pop.rows());
  std::vector<double> out;
  out.reserve(k * (1 + dim));
  for (const std::size_t i : chosen) {
    out.push_back(s.cost(static_cast<Eigen::Index>(i)));
    for (std::size_t d = 0; d < dim; ++d) {
      out.push_back(s.pop(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(i)));
    }
  }
  return out;
}

std::size_t accept_immigrants(de::DeState& s, const std::vector<double>& packed, std::size_t dim,
                              ReplacePolicy policy, Rng& rng) {
  const std::size_t stride = 1 + dim, n = packed.size() / stride;
  const std::size_t np = static_cast<std::size_t>(s.cost.size());
  // Best migrants first, so that with fair replacement the strongest get the places.
  std::vector<std::size_t> m(n);
  std::iota(m.begin(), m.end(), 0);
  std::stable_sort(m.begin(), m.end(), [&](std::size_t a, std::size_t b) {
    return packed[a * stride] < packed[b * stride];
  });
  std::size_t accepted = 0;
  std::vector<bool> replaced(np, false);
  for (const std::size_t j : m) {
    const double cost = packed[j * stride];
    std::size_t target = np;
    if (policy == ReplacePolicy::random_non_best) {
      if (np < 2) break;
      Eigen::Index best = 0;
      s.cost.minCoeff(&best);
      do {
        target = rng.below(np);
      } while (target == static_cast<std::size_t>(best));
    } else {  // the worst not yet replaced this epoch
      double worst = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < np; ++i) {
        if (!replaced[i] && s.cost(static_cast<Eigen::Index>(i)) >= worst) {
          worst = s.cost(static_cast<Eigen::Index>(i));
          target = i;
        }
      }
      if (target == np) break;
      if (policy == ReplacePolicy::fair && !(cost < worst)) continue;
    }
    replaced[target] = true;
    s.cost(static_cast<Eigen::Index>(target)) = cost;
    for (std::size_t d = 0; d < dim; ++d) {
      s.pop(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(target)) =
          packed[j * stride + 1 + d];
    }
    ++accepted;
  }
  return accepted;
}

}  // namespace perfit::island
