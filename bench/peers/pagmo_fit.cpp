// The pagmo2 contender of bench/peers/compare.py: the same 6-constant model, bounds, cost
// (mean squared relative error) and target, de best/1/bin on 2 thread islands, one generation
// per evolve so the time to target is measured, not a fixed budget. Built only with
// -DPERFIT_BENCH_PAGMO=ON (Debian libpagmo-dev): perfit itself never depends on pagmo.
//
// usage: perfit_bench_pagmo ROWS.bin TARGET SEED [variant=2 (best/1/bin)|sade]
// ROWS.bin: n, then n rows of (p, b, d, y) as little-endian doubles (written by compare.py).
// Prints: seconds generations evaluations best_cost
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <pagmo/algorithm.hpp>
#include <pagmo/algorithms/de.hpp>
#include <pagmo/algorithms/sade.hpp>
#include <pagmo/archipelago.hpp>
#include <pagmo/problem.hpp>
#include <string>
#include <vector>

namespace {

struct Rows {
  std::vector<double> p, b, d, y, inv_y, log_b, dp, dpb, log2p, pm1p;
};

std::shared_ptr<const Rows> load(const char* path) {
  std::ifstream in(path, std::ios::binary);
  double n = 0;
  in.read(reinterpret_cast<char*>(&n), sizeof n);
  auto r = std::make_shared<Rows>();
  const auto rows = static_cast<std::size_t>(n);
  std::vector<double> raw(4 * rows);
  in.read(reinterpret_cast<char*>(raw.data()),
          static_cast<std::streamsize>(raw.size() * sizeof(double)));
  for (std::size_t i = 0; i < rows; ++i) {
    const double p = raw[4 * i], b = raw[4 * i + 1], d = raw[4 * i + 2], y = raw[4 * i + 3];
    r->inv_y.push_back(1.0 / y);
    r->log_b.push_back(std::log(b));
    r->dp.push_back(d / p);
    r->dpb.push_back(d / (p * b));
    r->log2p.push_back(std::log2(p));
    r->pm1p.push_back((p - 1) / p);
  }
  return r;
}

// c0 + c1*(d/p)*b^(a-1) + (d/(p*b))*(c2 + c3*log2(p) + c4*(p-1)/p), row terms precomputed once.
struct Model {
  std::shared_ptr<const Rows> rows;
  pagmo::vector_double fitness(const pagmo::vector_double& x) const {
    const Rows& r = *rows;
    const std::size_t n = r.inv_y.size();
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double pred = x[0] + x[1] * r.dp[i] * std::exp((x[2] - 1) * r.log_b[i]) +
                          r.dpb[i] * (x[3] + x[4] * r.log2p[i] + x[5] * r.pm1p[i]);
      const double e = pred * r.inv_y[i] - 1.0;
      s += e * e;
    }
    return {s / static_cast<double>(n)};
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
    return {{0, 1e-6, 0.5, 0, 0, 0}, {1000, 0.1, 1.5, 1, 0.1, 0.1}};
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROWS.bin TARGET SEED [de|sade]\n", argv[0]);
    return 2;
  }
  const double target = std::atof(argv[2]);
  const auto seed = static_cast<unsigned>(std::atoi(argv[3]));
  const std::string variant = argc > 4 ? argv[4] : "de";
  const pagmo::problem prob{Model{load(argv[1])}};
  const auto t0 = std::chrono::steady_clock::now();
  const pagmo::algorithm algo = variant == "sade" ? pagmo::algorithm{pagmo::sade(1, 2, 1)}
                                                  : pagmo::algorithm{pagmo::de(1, 0.8, 0.9, 2)};
  pagmo::archipelago archi{2, algo, prob, 64, seed};
  double best = std::numeric_limits<double>::infinity();
  std::size_t gens = 0;
  while (best > target && gens < 5000) {
    archi.evolve(1);
    archi.wait_check();
    ++gens;
    for (const auto& f : archi.get_champions_f()) best = std::min(best, f[0]);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t evals = 0;
  for (const auto& isl : archi) evals += isl.get_population().get_problem().get_fevals();
  std::printf("%.4f %zu %zu %.9g\n", secs, gens, evals, best);
  return 0;
}
