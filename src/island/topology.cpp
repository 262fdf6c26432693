#include "perfit/island/topology.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "perfit/core/error.hpp"
#include "perfit/core/rng.hpp"

namespace perfit::island {

namespace {
constexpr std::pair<const char*, TopologyKind> kKinds[] = {{"ring", TopologyKind::ring},
                                                           {"ring-bi", TopologyKind::ring_bi},
                                                           {"torus", TopologyKind::torus},
                                                           {"full", TopologyKind::full},
                                                           {"random", TopologyKind::random_regular},
                                                           {"custom", TopologyKind::custom}};
}

TopologyKind parse_topology(const std::string& s) {
  std::string names;
  for (const auto& [n, k] : kKinds) {
    if (s == n) return k;
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  throw ConfigError("topology '" + s + "' is not one of " + names);
}

const char* to_string(TopologyKind k) {
  for (const auto& [n, v] : kKinds) {
    if (v == k) return n;
  }
  return "?";
}

int Topology::diameter() const {
  const int n = static_cast<int>(out.size());
  int diam = 0;
  for (int s = 0; s < n; ++s) {
    std::vector<int> dist(static_cast<std::size_t>(n), -1);
    std::queue<int> q;
    dist[static_cast<std::size_t>(s)] = 0;
    q.push(s);
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (int v : out[static_cast<std::size_t>(u)]) {
        if (dist[static_cast<std::size_t>(v)] < 0) {
          dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
          q.push(v);
        }
      }
    }
    for (int d : dist) {
      if (d < 0) return -1;
      diam = std::max(diam, d);
    }
  }
  return diam;
}

Topology make_topology(const TopologySpec& spec, int n, std::uint64_t seed, std::uint64_t epoch) {
  Topology t;
  t.out.assign(static_cast<std::size_t>(n), {});
  auto link = [&](int a, int b) {
    if (a != b) t.out[static_cast<std::size_t>(a)].push_back(b);
  };
  switch (spec.kind) {
    case TopologyKind::ring:
      for (int i = 0; i < n; ++i) link(i, (i + 1) % n);
      break;
    case TopologyKind::ring_bi:
      for (int i = 0; i < n; ++i) {
        link(i, (i + 1) % n);
        link(i, (i + n - 1) % n);
      }
      break;
    case TopologyKind::torus: {
      // The most square r x c grid with r*c = n, wrapping in both directions.
      int r = static_cast<int>(std::sqrt(static_cast<double>(n)));
      while (r > 1 && n % r != 0) --r;
      const int c = n / r;
      for (int i = 0; i < n; ++i) {
        const int row = i / c, col = i % c;
        link(i, row * c + (col + 1) % c);
        link(i, row * c + (col + c - 1) % c);
        link(i, ((row + 1) % r) * c + col);
        link(i, ((row + r - 1) % r) * c + col);
      }
      break;
    }
    case TopologyKind::full:
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) link(i, j);
      }
      break;
    case TopologyKind::random_regular: {
      if (spec.degree < 1) {
        throw ConfigError("random topology degree " + std::to_string(spec.degree) +
                          " must be >= 1 (islands each send to that many others)");
      }
      // At most n-1 distinct targets exist; a larger degree means "everyone else".
      const int degree = std::min(spec.degree, n - 1);
      // A circulant graph under a random relabelling: pi(i) sends to pi(i+1..i+k). Exactly
      // k-regular in and out, and connected through its Hamiltonian cycle pi(i) -> pi(i+1).
      Rng rng = Rng::derive(seed, 0xC0FFEEULL + epoch);
      std::vector<int> perm(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
      for (int i = n - 1; i > 0; --i) {
        std::swap(perm[static_cast<std::size_t>(i)],
                  perm[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
      }
      for (int i = 0; i < n; ++i) {
        for (int k = 1; k <= degree; ++k) {
          link(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>((i + k) % n)]);
        }
      }
      break;
    }
    case TopologyKind::custom: {
      if (static_cast<int>(spec.adjacency.size()) != n) {
        throw ConfigError("custom topology lists " + std::to_string(spec.adjacency.size()) +
                          " islands, the job has " + std::to_string(n) +
                          " (islands.adjacency needs one list of targets per island)");
      }
      for (int i = 0; i < n; ++i) {
        for (int j : spec.adjacency[static_cast<std::size_t>(i)]) {
          if (j < 0 || j >= n) {
            throw ConfigError("custom topology: island " + std::to_string(i) + " sends to " +
                              std::to_string(j) + ", expected 0.." + std::to_string(n - 1));
          }
          link(i, j);
        }
      }
      break;
    }
  }
  t.in.assign(static_cast<std::size_t>(n), {});
  for (int i = 0; i < n; ++i) {
    auto& o = t.out[static_cast<std::size_t>(i)];
    std::sort(o.begin(), o.end());
    o.erase(std::unique(o.begin(), o.end()), o.end());
    for (int j : o) t.in[static_cast<std::size_t>(j)].push_back(i);
  }
  for (auto& v : t.in) std::sort(v.begin(), v.end());
  return t;
}

}  // namespace perfit::island
