#include "perfit/fit/validation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/rng.hpp"
#include "perfit/data/synth.hpp"
#include "perfit/fit/lambda_choice.hpp"
#include "perfit/io/model_config.hpp"
#include "support/synth_rows.hpp"

namespace perfit::fit {

namespace {

FitProblem problem(const std::string& model, std::shared_ptr<const data::MeasurementTable> rows) {
  FitProblem p;
  p.model = std::make_shared<const model::Model>(io::load_model(model), rows->column_names());
  p.rows = std::move(rows);
  return p;
}

}  // namespace

// The true model extrapolates to the largest scale at the noise level; a model without the
// batch, data and communication terms does clearly worse.
TEST(Validation, ExtrapolationErrorIsAtTheNoiseLevelForTheTrueModelOnly) {
  const auto rows =
      std::make_shared<const data::MeasurementTable>(testing_support::synth_set(0, 3000, 0.02, 5));
  const auto folds = data::make_folds(data::parse_split("scale:p"), *rows, {"p"}, 1);
  ASSERT_EQ(folds.size(), 1u);
  const auto fits =
      fit_folds({{problem("generic", rows), &folds[0]}, {problem("amdahl", rows), &folds[0]}}, {},
                MPI_COMM_NULL);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_FALSE(fits[0].failed);
  EXPECT_EQ(fits[0].fold, "p>=1024");
  EXPECT_EQ(fits[0].test_rows, folds[0].test_rows);
  EXPECT_EQ(fits[0].predicted.size(), static_cast<Eigen::Index>(folds[0].test_rows));
  // 2% log-normal noise: a perfect model has a MAPE of about 1.6%.
  EXPECT_LT(fits[0].test.mape, 3.0) << "generic extrapolates worse than the noise";
  EXPECT_GT(fits[1].test.mape, 3.0 * fits[0].test.mape) << "amdahl as good as the true model";
  EXPECT_NEAR(fits[0].test_cost,
              mean_residual(model::Residual::rel_sq, fits[0].predicted, fits[0].measured), 0.0);
}

TEST(Validation, KfoldPredictsEveryRowOnce) {
  const auto rows =
      std::make_shared<const data::MeasurementTable>(testing_support::synth_set(4, 1500, 0.02, 2));
  const auto folds =
      data::make_folds(data::parse_split("kfold:4"), *rows, {"epochs", "d", "b", "p"}, 3);
  std::vector<FoldJob> jobs;
  for (const auto& f : folds) jobs.push_back({problem("generic", rows), &f});
  const auto fits = fit_folds(jobs, {}, MPI_COMM_NULL);
  const Pooled all = pool(fits, model::Residual::rel_sq);
  EXPECT_EQ(all.rows, rows->rows());
  EXPECT_FALSE(all.failed);
  EXPECT_LT(all.metrics.mape, 3.0);
  // In-sample (no fold): trained on every row, every row predicted.
  const auto in = fit_folds({{problem("generic", rows), nullptr}}, {}, MPI_COMM_NULL);
  EXPECT_EQ(in[0].train_rows, rows->rows());
  EXPECT_EQ(in[0].test_rows, rows->rows());
  EXPECT_LE(in[0].test.mape, all.metrics.mape + 0.2);
}

TEST(Validation, AFitWithoutAFiniteCostComesBackFailed) {
  data::MeasurementTable t;
  t.add_column(data::Column("p", std::vector<double>{1, 2, 4, 8, 16}));
  t.add_column(data::Column("time", std::vector<double>{5, 4, 3, 2, 1}));
  t.attributes()["target"] = std::string("time");
  model::ModelSpec s;
  s.name = "broken";
  s.expression = "c*log2(p-1)";  // -inf at p = 1: every candidate predicts a negative time there
  s.params = {{"c", 1.0, 2.0, false}};
  FitProblem p;
  p.rows = std::make_shared<const data::MeasurementTable>(t);
  p.model = std::make_shared<const model::Model>(s, t.column_names());
  const auto fits = fit_folds({{p, nullptr}}, {}, MPI_COMM_NULL);
  EXPECT_TRUE(fits[0].failed);
  EXPECT_TRUE(std::isnan(fits[0].params(0)));
  const Pooled pooled = pool(fits, model::Residual::rel_sq);
  EXPECT_TRUE(pooled.failed);
  EXPECT_TRUE(std::isinf(pooled.cost));
}

// A set where the generic model overfits: the truth has no communication cost, the rows are
// few (120, 10% noise) and 80 of them span only p = 1..8, so lambda 0 turns noise into latency
// and bandwidth constants. lambda: auto must never predict the unseen larger scales worse, and
// on some seed it must pick a lambda > 0 that predicts them better (else the test proves nothing).
TEST(Validation, LambdaAutoNeverExtrapolatesWorseThanLambdaZero) {
  data::GenericTruth truth = data::synth_catalogue()[0].truth;
  truth.c3 = truth.c4 = 0.0;
  int improved = 0;
  // Two seeds: each lambda > 0 is a full 6-D search, 40 s under the sanitizers. Seeds 3 and 4
  // hold too (measured: equal and better).
  for (const std::uint64_t seed : {1u, 2u}) {
    Rng rng(seed);
    std::vector<double> p, b, d, e, t;
    for (int i = 0; i < 120; ++i) {
      p.push_back(std::pow(2.0, static_cast<double>(rng.below(i < 80 ? 4 : 11))));
      b.push_back(std::pow(2.0, 4.0 + static_cast<double>(rng.below(7))));
      d.push_back(1e5 * static_cast<double>(1 + rng.below(3)));
      e.push_back(static_cast<double>(1 + rng.below(3)));
      t.push_back(data::generic_time(truth, p.back(), b.back(), d.back(), e.back()) *
                  std::exp(0.1 * rng.normal()));
    }
    data::MeasurementTable all;
    for (auto& [name, v] : {std::pair{"p", p}, {"b", b}, {"d", d}, {"epochs", e}, {"time", t}})
      all.add_column(data::Column(name, v));
    all.attributes()["target"] = std::string("time");
    std::vector<bool> train(p.size()), test(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      train[i] = p[i] <= 8;
      test[i] = p[i] >= 32;
    }
    const auto rows = std::make_shared<const data::MeasurementTable>(data::select_rows(all, train));
    const data::MeasurementTable held_out = data::select_rows(all, test);
    double lambda = 0.0;
    const auto mape_at_scale = [&](bool lambda_auto) {
      FitProblem pr = problem("generic", rows);
      pr.quiet = true;
      pr.cost.lambda_auto = lambda_auto;
      de::FitOptions o;
      o.de.seed = seed;
      const FitReport r = fit(pr, o, {}, island::serial_layout());
      if (lambda_auto) {
        EXPECT_EQ(r.lambda.split, "forward:p");
        EXPECT_EQ(r.lambda.folds, 2u);  // p = 4 from 1, 2; p = 8 from 1, 2, 4
        EXPECT_EQ(r.lambda.scores.size(), lambda_grid().size());
        lambda = r.lambda.lambda;
      }
      const model::Evaluator ev(*pr.model, held_out, {});
      return model::compute_metrics(ev.predict(r.params), ev.measured()).mape;
    };
    const double zero = mape_at_scale(false), chosen = mape_at_scale(true);
    EXPECT_LE(chosen, zero * (1.0 + 1e-9)) << "seed " << seed << " lambda " << lambda;
    improved += lambda > 0.0 && chosen < zero;
  }
  EXPECT_GE(improved, 1);
}

}  // namespace perfit::fit
