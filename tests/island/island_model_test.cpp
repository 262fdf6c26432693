#include "perfit/island/island_model.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>

#include "perfit/data/synth.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/io/model_config.hpp"
#include "support/mpi_world.hpp"

namespace perfit::island {

using test::world_rank;
using test::world_size;

namespace {

// Rastrigin on [-5.12, 5.12]^8: random starts are far from its optimum at the centre.
de::BatchObjective rastrigin() {
  return [](const Eigen::MatrixXd& p, Eigen::VectorXd& c) {
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      const Eigen::ArrayXd x = -5.12 + p.col(j).array() * 10.24;
      c(j) =
          10.0 * static_cast<double>(x.size()) + (x.square() - 10.0 * (2 * M_PI * x).cos()).sum();
    }
  };
}

de::DeOptions base(std::size_t gens) {
  de::DeOptions o;
  o.strategy = de::Strategy::lshade;
  o.max_generations = gens;
  o.seed = 17;
  o.tol = 0;
  return o;
}

}  // namespace

TEST(IslandModel, SyncRunsWithTheSameSeedAreBitIdentical) {
  IslandOptions io;
  io.interval = 5;
  io.topology.kind = TopologyKind::random_regular;  // re-drawn each epoch from the seed
  io.topology.degree = 1;
  const IslandLayout L = make_layout(MPI_COMM_WORLD, 1);
  const IslandSummary a = run_islands(L, 8, base(60), io, rastrigin());
  const IslandSummary b = run_islands(L, 8, base(60), io, rastrigin());
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.best_cost, b.best_cost);
  EXPECT_EQ(a.history, b.history);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.island_best.size(), static_cast<std::size_t>(world_size()));
}

TEST(IslandModel, OneRankIsExactlyTheSerialOptimiser) {
  if (world_size() != 1) GTEST_SKIP() << "compares the 1-rank island model with serial DE";
  IslandOptions io;
  io.interval = 7;
  const IslandLayout L = make_layout(MPI_COMM_WORLD, 1);
  const IslandSummary isl = run_islands(L, 8, base(50), io, rastrigin());
  de::DeOptimizer serial(8, base(50), rastrigin());
  const de::DeSummary s = serial.run();
  EXPECT_EQ(isl.best, s.best);
  EXPECT_EQ(isl.best_cost, s.best_cost);
  EXPECT_EQ(isl.evaluations, s.evaluations);
  EXPECT_EQ(isl.reason, s.reason);
}

TEST(IslandModel, MigrationSpreadsTheOptimumWithinTheTopologyDiameter) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two or more islands";
  for (TopologyKind kind : {TopologyKind::ring, TopologyKind::full, TopologyKind::torus}) {
    IslandOptions io;
    io.topology.kind = kind;
    io.interval = 1;
    io.migrants = 1;
    const int diameter = make_topology(io.topology, n, 0, 0).diameter();
    // Island 0 starts at the optimum (the centre of the cube); the others start at random
    // and cannot get near it in so few generations. After `diameter` migration epochs every
    // island holds it (the final epoch votes to stop before migrating, hence the +1).
    de::DeOptions b = base(static_cast<std::size_t>(diameter + 1));
    b.population = 40;
    b.strategy = de::Strategy::rand1bin;
    io.per_island.assign(static_cast<std::size_t>(n), b);
    io.per_island[0].x0 = {Eigen::VectorXd::Constant(8, 0.5)};
    const IslandLayout L = make_layout(MPI_COMM_WORLD, 1);
    const IslandSummary s = run_islands(L, 8, b, io, rastrigin());
    ASSERT_EQ(s.island_best.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(s.island_best[static_cast<std::size_t>(i)], 0.0)
          << to_string(kind) << " island " << i << " after " << diameter << " epochs";
    }
    // Without migration the others do not find it in that time: the test can fail.
    IslandOptions none = io;
    none.migrants = 0;
    const IslandSummary t = run_islands(L, 8, b, none, rastrigin());
    EXPECT_GT(t.island_best.back(), 1.0) << to_string(kind);
  }
}

TEST(IslandModel, ATargetMetOnAnyIslandIsTheJobsStopReason) {
  const int n = world_size();
  for (MigrationMode mode : {MigrationMode::sync, MigrationMode::async}) {
    IslandOptions io;
    io.mode = mode;
    io.interval = 3;
    de::DeOptions b = base(3000);
    b.target_cost = 1e-12;
    io.per_island.assign(static_cast<std::size_t>(n), b);
    io.per_island.back().x0 = {Eigen::VectorXd::Constant(8, 0.5)};  // only the last island
    const IslandLayout L = make_layout(MPI_COMM_WORLD, 1);
    const IslandSummary s = run_islands(L, 8, b, io, rastrigin());
    EXPECT_EQ(s.reason, de::StopReason::target_cost);
    EXPECT_EQ(s.best_cost, 0.0);
    // In sync mode the stop comes before any migration; in async the vote completes an epoch
    // later, by which time the optimum may have migrated (ties go to the lowest rank).
    if (mode == MigrationMode::sync) {
      EXPECT_EQ(s.best_island, n - 1);
    }
    EXPECT_LT(s.generations, 3000u);  // everyone stopped early, not at the budget
  }
}

TEST(IslandModel, AsyncCompletesUnderASlowIslandWithoutWaitingForIt) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs a fast island beside the slow one";
  IslandOptions io;
  io.mode = MigrationMode::async;
  io.interval = 2;
  io.slow_island = n - 1;  // the last island sleeps 100 ms per generation
  io.slow_ms = 100.0;
  de::DeOptions b = base(40);
  const auto t0 = std::chrono::steady_clock::now();
  const IslandLayout L = make_layout(MPI_COMM_WORLD, 1);
  const IslandSummary s = run_islands(L, 8, b, io, rastrigin());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(std::isfinite(s.best_cost));
  EXPECT_GE(s.epochs, 1u);
  // The slow island alone needs 40 x 100 ms = 4 s for its generations; the job ends with the
  // first island to finish its budget (milliseconds) plus a vote that the slow island joins at
  // its next epoch end (2 generations, 0.2 s). Waiting for the slowest would take >= 4 s.
  EXPECT_LT(secs, 2.0) << "the job waited for its slow island";
  // Everything sent was received (the drain): a second run in the same process works.
  const IslandSummary again = run_islands(L, 8, b, io, rastrigin());
  EXPECT_TRUE(std::isfinite(again.best_cost));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(IslandModel, RanksPerIslandGiveTheSameCostsAsOneRankOnTheWholeSet) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two ranks per island";
  data::SynthOptions so;
  so.rows = 5003;  // not a multiple of the rank count
  data::SynthGenerator g(data::synth_catalogue()[0], so, 0);
  data::MeasurementTable whole = g.next_chunk(so.rows);
  whole.attributes() = g.attributes();
  const IslandLayout L = make_layout(MPI_COMM_WORLD, n);  // one island of all ranks
  const auto [b, e] = L.row_slice(whole.rows());
  data::MeasurementTable slice;
  for (const auto& c : whole.columns()) {
    if (c.type() == data::ColumnType::int64) {
      slice.add_column(data::Column(
          c.name(), std::vector<std::int64_t>(c.i64().begin() + static_cast<std::ptrdiff_t>(b),
                                              c.i64().begin() + static_cast<std::ptrdiff_t>(e))));
    } else {
      slice.add_column(data::Column(
          c.name(), std::vector<double>(c.f64().begin() + static_cast<std::ptrdiff_t>(b),
                                        c.f64().begin() + static_cast<std::ptrdiff_t>(e))));
    }
  }
  slice.attributes() = whole.attributes();
  const model::Model m(io::load_model("generic"), whole.column_names());
  const model::Evaluator full(m, whole), part(m, slice);
  Rng rng(3);
  Eigen::MatrixXd pop(6, 16);
  for (Eigen::Index j = 0; j < pop.cols(); ++j) {
    for (Eigen::Index i = 0; i < 6; ++i)
      pop(i, j) = m.from_unit(static_cast<std::size_t>(i), rng.uniform(0.2, 0.8));
  }
  Eigen::VectorXd want(16), sums(16);
  full.costs(pop, want);
  part.residual_sums(pop, sums);
  double w = part.weight_sum();
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), 16, MPI_DOUBLE, MPI_SUM, L.island_comm.get());
  MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_DOUBLE, MPI_SUM, L.island_comm.get());
  EXPECT_EQ(w, 5003.0);
  for (Eigen::Index j = 0; j < 16; ++j) {
    // Same sum, added in another order: equal to rounding.
    EXPECT_NEAR(sums(j) / w, want(j), 1e-12 * want(j)) << j;
  }
  // And a whole fit with 2+ ranks per island finds the same optimum as one rank.
  de::FitOptions fo;
  fo.de.max_generations = 400;
  IslandOptions io;
  io.ranks_per_island = n;
  const auto model = std::make_shared<const model::Model>(m);
  const fit::FitReport r = fit::fit(
      {model, std::make_shared<const data::MeasurementTable>(slice), {}, {}, 1}, fo, io, L);
  const fit::FitReport serial =
      fit::fit({model, std::make_shared<const data::MeasurementTable>(whole), {}, {}, 1}, fo,
               IslandOptions{}, serial_layout());
  EXPECT_NEAR(r.cost, serial.cost, 1e-9 * serial.cost);
  for (Eigen::Index k = 0; k < 6; ++k)
    EXPECT_NEAR(r.params(k), serial.params(k), 1e-6 * std::fabs(serial.params(k)));
  // The search's own costs (compressed, projected: each rank's slice has its own constant)
  // are the whole set's from the first generation on, the same on every rank.
  ASSERT_FALSE(r.history.empty());
  EXPECT_NEAR(r.history.front(), serial.history.front(), 1e-10 * serial.history.front());
  double first[2] = {r.history.front(), -r.history.front()};
  MPI_Allreduce(MPI_IN_PLACE, first, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(first[0], -first[1]) << "ranks of one island disagree on the search's costs";
  EXPECT_NEAR(r.metrics.mape, serial.metrics.mape, 1e-9);
}

}  // namespace perfit::island
