#include "perfit/fit/engine.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/data/synth.hpp"
#include "perfit/io/model_config.hpp"
#include "support/synth_rows.hpp"

namespace perfit::fit {

using de::FitOptions;

namespace {
// A serial fit through the one engine: one island, no MPI.
FitReport fit_serial(const data::MeasurementTable& t, const FitOptions& o, unsigned threads = 1,
                     bool compress = true,
                     model::SeparableMode separable = model::SeparableMode::automatic,
                     const std::string& model = "generic") {
  FitProblem p;
  p.rows = std::make_shared<const data::MeasurementTable>(t);
  p.model = std::make_shared<const model::Model>(io::load_model(model), t.column_names());
  p.threads = threads;
  p.compress = compress;
  p.separable = separable;
  return fit(p, o, island::IslandOptions{}, island::serial_layout());
}
}  // namespace

using testing_support::synth_set;

// The acceptance test of the fit: on synthetic data with 1% noise, the generic model's fit
// recovers every truth constant within 1% (relative) and MAPE sits near the noise level.
// 1e5 rows (perfit synth's default): at 2e4 rows the statistical error of the weakly
// identified overhead and latency constants alone is 1.2-1.4%, whatever the optimiser does.
TEST(FitEngine, GenericFitRecoversEveryTruthConstantWithinOnePercent) {
  for (std::size_t set : {0u, 4u, 8u}) {  // tensorflow/resnet50, mxnet/vgg16, pytorch/bert
    const data::MeasurementTable t = synth_set(set, 100000, 0.01, 7);
    const model::Model m(io::load_model("generic"), t.column_names());
    FitOptions o;
    o.de.seed = 3;
    const FitReport r = fit_serial(t, o, 2);
    const auto tr = data::synth_catalogue()[set].truth;  // the catalogue is returned by value
    const double truth[] = {tr.c0, tr.c1, tr.g, tr.c2, tr.c3, tr.c4};
    double worst = 0;
    for (int k = 0; k < 6; ++k) {
      worst = std::max(worst, std::fabs(r.params(k) / truth[k] - 1.0));
      EXPECT_NEAR(r.params(k) / truth[k], 1.0, 0.01)
          << data::synth_catalogue()[set].path() << " " << m.param_names()[k] << " = "
          << r.params(k) << ", truth " << truth[k];
    }
    // 1% log-normal noise: mean |relative error| = sigma*sqrt(2/pi) = 0.80%.
    EXPECT_NEAR(r.metrics.mape, 0.80, 0.05);
    EXPECT_GT(r.metrics.r2, 0.999);
    std::printf("%s: worst param error %.3f%%, cost %.6g (DE %.6g), %zu generations, %.2f s\n",
                data::synth_catalogue()[set].path().c_str(), 100 * worst, r.cost,
                r.cost_before_polish, r.generations, r.seconds);
  }
}

TEST(FitEngine, SameSeedSameFit) {
  const data::MeasurementTable t = synth_set(2, 3000, 0.02, 1);
  FitOptions o;
  o.de.max_generations = 100;
  const FitReport a = fit_serial(t, o), b = fit_serial(t, o);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.history, b.history);
}

TEST(FitEngine, ReportsSayWhyItStoppedAndWhatItFound) {
  const data::MeasurementTable t = synth_set(2, 3000, 0.02, 1);
  FitOptions o;
  o.de.max_generations = 40;
  o.de.tol = 0;
  const FitReport r = fit_serial(t, o);
  EXPECT_EQ(r.brief_report().rfind("stopped: max_generations, cost ", 0), 0u) << r.brief_report();
  EXPECT_NE(r.brief_report().find("after 40 generations"), std::string::npos) << r.brief_report();
  const std::vector<std::string> names = {"c0", "c1", "g", "c2", "c3", "c4"};
  const std::string full = r.full_report(names);
  for (const std::string want : {"stop reason                max_generations", "cost before polish",
                                 "40 generations", "metrics", "interrupted                no"}) {
    EXPECT_NE(full.find(want), std::string::npos) << "'" << want << "' missing in\n" << full;
  }
  for (const auto& n : names)
    EXPECT_NE(full.find("\n  " + n + " "), std::string::npos) << n << "\n" << full;
  EXPECT_NE(r.full_report().find("param 5"), std::string::npos);  // without names: by position
}

TEST(FitEngine, PolishIsKeptOnlyWhenItLowersTheCost) {
  const data::MeasurementTable t = synth_set(1, 3000, 0.0, 1);
  const model::Model m(io::load_model("generic"), t.column_names());
  const model::Evaluator ev(m, t);
  FitOptions o;
  o.de.max_generations = 30;  // a rough DE result for the polish to improve
  const FitReport r = fit_serial(t, o);
  EXPECT_TRUE(r.polish_improved);
  EXPECT_LT(r.cost, r.cost_before_polish);
  // The cost of the reported params (on compressed rows: the same up to rounding, which on
  // noise-free rows is eps times the residuals, ~sqrt(cost), not times the cost).
  const double c = ev.cost(r.params);
  EXPECT_NEAR(r.cost, c, 1e-12 * c + 4e-16 * std::sqrt(c));
  o.polish = false;
  const FitReport rough = fit_serial(t, o);
  EXPECT_FALSE(rough.polish_improved);
  EXPECT_EQ(rough.cost, rough.cost_before_polish);
}

// search_rows: a set of more than twice as many rows is searched on every k-th row and
// polished on all: the same optimum as a search of every row. The search's own costs (its
// history) are the sample's; the reported cost is judged on every row.
TEST(FitEngine, ALargeSetIsSearchedOnASampleAndPolishedOnEveryRow) {
  const data::MeasurementTable t = synth_set(1, 6000, 0.02, 1);
  FitOptions o;
  o.search_rows = 0;
  const FitReport all = fit_serial(t, o, 1, false);
  o.search_rows = 1000;  // 6000 rows: one in 6 searched
  const FitReport sampled = fit_serial(t, o, 1, false);
  EXPECT_NEAR(sampled.cost, all.cost, 1e-9 * all.cost);
  for (Eigen::Index k = 0; k < all.params.size(); ++k) {
    EXPECT_NEAR(sampled.params(k), all.params(k), 1e-4 * std::fabs(all.params(k))) << "param " << k;
  }
  EXPECT_EQ(sampled.rows, t.rows());
  EXPECT_GT(std::fabs(sampled.history.back() / sampled.cost_before_polish - 1.0), 1e-6);
  EXPECT_NEAR(all.history.back(), all.cost_before_polish, 1e-12 * all.cost);
  // Without the polish, or with a target cost (a promise about every row), the search sees
  // every row: its best is the reported cost.
  for (const bool polish : {false, true}) {
    FitOptions whole = o;
    whole.polish = polish;
    if (polish) whole.de.target_cost = 2.0 * all.cost;
    const FitReport r = fit_serial(t, whole, 1, false);
    EXPECT_NEAR(r.history.back(), r.cost_before_polish, 1e-12 * r.cost) << "polish " << polish;
  }
}

// Synthetic sets are grids with repeats: 20000 rows hold a few hundred configurations.
TEST(FitEngine, CompressingRepeatedConfigurationsFindsTheSameFit) {
  const data::MeasurementTable t = synth_set(4, 20000, 0.02, 3);
  FitOptions o;
  o.de.max_generations = 400;
  const FitReport packed = fit_serial(t, o, 1, true), rows = fit_serial(t, o, 1, false);
  EXPECT_LT(packed.configurations, t.rows() / 10);
  EXPECT_EQ(rows.configurations, t.rows());
  EXPECT_NEAR(packed.cost, rows.cost, 1e-9 * rows.cost);
  // In the search space (the unit cube of the bounds, log-aware): the weakly determined
  // overhead constant moves by a few 1e-9 relative along its flat valley, 3e-10 of its range.
  for (Eigen::Index k = 0; k < packed.unit.size(); ++k) {
    EXPECT_NEAR(packed.unit(k), rows.unit(k), 1e-9) << k;
  }
  EXPECT_NEAR(packed.metrics.mape, rows.metrics.mape, 1e-9);  // metrics always use every row
}

// Variable projection finds the optimum the search over every constant finds, with far
// fewer evaluations: params to 1e-6, cost to 1e-9 (relative), on three synthetic sets.
TEST(FitEngine, SeparableFitReachesTheSameOptimumAsTheFullSearch) {
  for (std::size_t set : {0u, 4u, 8u}) {
    const data::MeasurementTable t = synth_set(set, 20000, 0.02, 5);
    FitOptions o;
    o.de.seed = 2;
    const FitReport proj = fit_serial(t, o, 1, false);
    o.de.max_generations = 3000;
    const FitReport full = fit_serial(t, o, 1, false, model::SeparableMode::off);
    SCOPED_TRACE(data::synth_catalogue()[set].path());
    EXPECT_NEAR(proj.cost, full.cost, 1e-9 * full.cost);
    for (Eigen::Index k = 0; k < proj.params.size(); ++k) {
      EXPECT_NEAR(proj.params(k), full.params(k), 1e-6 * std::fabs(full.params(k))) << k;
    }
    EXPECT_LT(proj.evaluations * 5, full.evaluations);
    std::printf("%s: separable %zu evaluations %.3f s, full %zu evaluations %.3f s\n",
                data::synth_catalogue()[set].path().c_str(), proj.evaluations, proj.seconds,
                full.evaluations, full.seconds);
  }
}

// A model with no linear constant (or a cost that is not quadratic in them) takes the full
// search: auto and off give the same fit, bit for bit.
TEST(FitEngine, SeparableChangesNothingWithoutLinearConstants) {
  data::MeasurementTable t = synth_set(1, 3000, 0.02, 4);
  FitOptions o;
  o.de.max_generations = 60;
  model::ModelSpec spec;
  spec.name = "nonlinear";
  spec.expression = "exp(a)*epochs*d/(b*p)*b^g";
  spec.params = {{"a", -20, 0, false}, {"g", 0.5, 1.2, false}};
  auto run = [&](model::SeparableMode mode, model::Residual res) {
    FitProblem p;
    p.rows = std::make_shared<const data::MeasurementTable>(t);
    p.model = std::make_shared<const model::Model>(spec, t.column_names());
    p.separable = mode;
    p.cost.residual = res;
    return fit(p, o, island::IslandOptions{}, island::serial_layout());
  };
  for (const model::Residual res : {model::Residual::rel_sq, model::Residual::ape}) {
    const FitReport a = run(model::SeparableMode::automatic, res),
                    b = run(model::SeparableMode::off, res);
    EXPECT_EQ(a.params, b.params);
    EXPECT_EQ(a.history, b.history);
    EXPECT_EQ(a.evaluations, b.evaluations);
  }
  // The generic model under ape: every constant searched, as with separable off.
  o.de.max_generations = 20;
  FitProblem p;
  p.rows = std::make_shared<const data::MeasurementTable>(t);
  p.model = std::make_shared<const model::Model>(io::load_model("generic"), t.column_names());
  p.cost.residual = model::Residual::ape;
  const FitReport ape = fit(p, o, island::IslandOptions{}, island::serial_layout());
  p.separable = model::SeparableMode::off;
  EXPECT_EQ(ape.params, fit(p, o, island::IslandOptions{}, island::serial_layout()).params);
}

// Every constant linear: one bounded least-squares solve is the global optimum.
TEST(FitEngine, AllLinearModelIsSolvedWithoutASearch) {
  const data::MeasurementTable t = synth_set(2, 5000, 0.02, 6);
  FitOptions o;
  const FitReport lin = fit_serial(t, o, 1, false, model::SeparableMode::automatic, "iteration");
  EXPECT_EQ(lin.generations, 0u);
  EXPECT_EQ(lin.reason, de::StopReason::converged);
  EXPECT_NE(lin.message.find("no search"), std::string::npos);
  o.de.max_generations = 400;
  const FitReport full = fit_serial(t, o, 1, false, model::SeparableMode::off, "iteration");
  EXPECT_LE(lin.cost, full.cost * (1 + 1e-9));
}

}  // namespace perfit::fit
