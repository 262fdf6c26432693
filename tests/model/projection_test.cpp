#include "perfit/model/projection.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"
#include "perfit/core/rng.hpp"
#include "perfit/data/synth.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::model {

namespace {

ModelSpec generic_spec() {
  ModelSpec s;
  s.name = "generic";
  s.expression = "c0 + iterations*(c1*b^g + c2 + c3*log2(p) + c4*(p-1)/p)";
  s.terms = {{"iterations", "epochs*d/(b*p)"}};
  s.params = {{"c0", 0, 1000, false}, {"c1", 1e-6, 1, true}, {"g", 0.5, 1.2, false},
              {"c2", 1e-6, 1, true},  {"c3", 1e-7, 1, true}, {"c4", 1e-6, 10, true}};
  return s;
}

data::MeasurementTable synth(std::size_t rows, std::uint64_t seed) {
  data::SynthOptions o;
  o.rows = rows;
  o.noise = 0.05;
  o.seed = seed;
  data::SynthGenerator g(data::synth_catalogue()[1], o, 1);
  data::MeasurementTable t = g.next_chunk(rows);
  t.attributes() = g.attributes();
  Rng rng(seed + 1);
  std::vector<double> w(rows);
  for (auto& x : w) x = rng.uniform(0.2, 3.0);
  t.add_column(data::Column("w", w));
  return t;
}

// Candidates: nonlinear params drawn in their bounds, linear ones left at 0 (solve fills them).
Eigen::MatrixXd random_pop(const Model& m, const Separation& s, int n, std::uint64_t seed) {
  Rng rng(seed);
  Eigen::MatrixXd pop = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m.n_params()), n);
  for (int j = 0; j < n; ++j) {
    for (const std::size_t i : s.nonlinear)
      pop(static_cast<Eigen::Index>(i), j) = m.from_unit(i, rng.uniform(0, 1));
  }
  return pop;
}

struct Solved {
  Eigen::MatrixXd pop;
  Eigen::VectorXd costs;
  std::vector<bool> check;
};

Solved project(const Evaluator& ev, const ProjectedEvaluator& pe, Eigen::MatrixXd pop) {
  Eigen::MatrixXd stats;
  pe.statistics(pop, stats);
  Solved r{pop, Eigen::VectorXd(pop.cols()), {}};
  pe.solve(r.pop, stats, 0.0, ev.weight_sum(), r.costs, r.check);
  return r;
}

// The projected cost is the evaluator's cost at the solved params, and no move of one linear
// param inside its bounds lowers it.
void expect_exact_and_optimal(const Evaluator& ev, const Separation& s, const Solved& r) {
  Eigen::VectorXd direct(r.pop.cols());
  ev.costs(r.pop, direct);
  for (Eigen::Index j = 0; j < r.pop.cols(); ++j) {
    ASSERT_TRUE(std::isfinite(r.costs(j)));
    EXPECT_NEAR(r.costs(j), direct(j), 1e-10 * direct(j)) << "candidate " << j;
    for (const std::size_t i : s.linear) {
      const ParamSpec& p = ev.model().spec().params[i];
      for (const double f : {0.999, 1.001}) {
        Eigen::VectorXd x = r.pop.col(j);
        const auto k = static_cast<Eigen::Index>(i);
        x(k) = std::clamp(x(k) == 0.0 ? 1e-6 * (p.hi - p.lo) : x(k) * f, p.lo, p.hi);
        EXPECT_GE(ev.cost(x), r.costs(j) * (1 - 1e-9)) << "candidate " << j << " " << p.name;
      }
    }
  }
}

}  // namespace

TEST(Projection, CostsEqualTheEvaluatorsAtTheSolvedParamsAndAreMinimalInThem) {
  const data::MeasurementTable t = synth(5000, 11);
  const Model m(generic_spec(), t.column_names());
  const Separation s = separate(m, std::vector<bool>(m.n_params(), true));
  ASSERT_EQ(s.nonlinear, (std::vector<std::size_t>{2}));
  for (const Residual res : {Residual::rel_sq, Residual::sq}) {
    for (const std::string weight : {"", "w"}) {
      CostOptions c;
      c.residual = res;
      c.weight_column = weight;
      const Evaluator ev(m, t, c);
      const ProjectedEvaluator pe(ev, s);
      SCOPED_TRACE(std::string(to_string(res)) + " weight '" + weight + "'");
      expect_exact_and_optimal(ev, s, project(ev, pe, random_pop(m, s, 9, 5)));
    }
  }
}

TEST(Projection, PenaltiesOfLinearlySearchedConstantsAreSolvedExactly) {
  const data::MeasurementTable t = synth(3000, 12);
  ModelSpec spec = generic_spec();
  for (auto& p : spec.params)
    p.log_scale = false;  // a log-searched param keeps its penalty in the DE
  const Model m(spec, t.column_names());
  for (const Penalty pen : {Penalty::l1, Penalty::l2}) {
    CostOptions c;
    c.penalty = pen;
    c.lambda = 0.05;
    const Separation s = separate(m, projectable_params(m, c));
    ASSERT_EQ(s.linear.size(), 5u);
    const Evaluator ev(m, t, c);
    const ProjectedEvaluator pe(ev, s);
    SCOPED_TRACE(to_string(pen));
    expect_exact_and_optimal(ev, s, project(ev, pe, random_pop(m, s, 6, 8)));
  }
  CostOptions logpen;
  logpen.lambda = 0.1;
  const Model generic(generic_spec(), t.column_names());
  EXPECT_EQ(projectable_params(generic, logpen),
            (std::vector<bool>{true, false, true, false, false, false}));
  logpen.residual = Residual::sq_log;
  EXPECT_EQ(projectable_params(generic, logpen), std::vector<bool>(6, false));
}

TEST(Projection, ThreadsAndBlockSizesGiveTheSameStatistics) {
  const data::MeasurementTable t = synth(40000, 13);
  const Model m(generic_spec(), t.column_names());
  const Separation s = separate(m, std::vector<bool>(m.n_params(), true));
  const Evaluator one(m, t);
  EvaluatorOptions eo;
  eo.threads = 2;
  eo.block_rows = 256;
  const Evaluator two(m, t, {}, eo);
  const Eigen::MatrixXd pop = random_pop(m, s, 7, 9);
  Eigen::MatrixXd a, b;
  ProjectedEvaluator(one, s).statistics(pop, a);
  ProjectedEvaluator(two, s).statistics(pop, b);
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-12 * a.cwiseAbs().maxCoeff());
}

// A joint fit's groups (model/grouped_model.hpp): each group's constants are summed over its
// rows only and solved as blocks with the pools' common values; the costs stay the evaluator's,
// with the rows of a group together or interleaved, over blocks that cut groups in two.
TEST(Projection, GroupsAreSolvedExactlyWhereverTheirRowsAre) {
  const std::size_t groups = 3, rows = 600;
  const ModelSpec grouped =
      expand_for_groups(generic_spec(), groups, {"g"}, {{"c0", 0.01, 20.0}, {"c1", 0.5, 0.004}});
  for (const bool together : {true, false}) {
    data::MeasurementTable t = synth(rows, 17);
    for (std::size_t g = 1; g <= groups; ++g) {
      std::vector<double> ind(rows);
      for (std::size_t i = 0; i < rows; ++i)
        ind[i] = (together ? i * groups / rows : i % groups) == g - 1 ? 1.0 : 0.0;
      t.add_column(data::Column(group_indicator(g), ind));
    }
    const Model m(grouped, t.column_names());
    const Separation s = separate(m, std::vector<bool>(m.n_params(), true));
    ASSERT_EQ(s.nonlinear.size(), groups);  // the exponents
    EvaluatorOptions eo;
    eo.block_rows = 128;
    const Evaluator ev(m, t, {}, eo);
    const ProjectedEvaluator pe(ev, s);
    SCOPED_TRACE(together ? "groups together" : "groups interleaved");
    expect_exact_and_optimal(ev, s, project(ev, pe, random_pop(m, s, 6, 21)));
  }
}

TEST(Projection, ABasisOfBothSignsAsksForTheNegativePredictionCheck) {
  // c0 + c1*(p - 8): the basis is negative below p = 8; a positive c1 may predict < 0.
  const data::MeasurementTable t = synth(500, 14);
  ModelSpec spec;
  spec.name = "signs";
  spec.expression = "c0 + c1*(p - 8)*b^g";
  spec.params = {{"c0", 0, 1000, false}, {"c1", -10, 10, false}, {"g", 0, 0.5, false}};
  const Model m(spec, t.column_names());
  const Separation s = separate(m, {true, true, true});
  const Evaluator ev(m, t);
  const Solved r = project(ev, ProjectedEvaluator(ev, s), random_pop(m, s, 5, 3));
  for (Eigen::Index j = 0; j < r.pop.cols(); ++j) {
    EXPECT_EQ(r.check[static_cast<std::size_t>(j)], r.pop(1, j) != 0.0) << "c1 = " << r.pop(1, j);
  }
  // The generic model's bases are >= 0 and its linear bounds too: never a check.
  const Model g(generic_spec(), t.column_names());
  const Separation gs = separate(g, std::vector<bool>(6, true));
  const Evaluator gev(g, t);
  for (const bool c : project(gev, ProjectedEvaluator(gev, gs), random_pop(g, gs, 5, 4)).check)
    EXPECT_FALSE(c);
}

TEST(Projection, RefusesResidualsThatAreNotQuadraticInTheLinearConstants) {
  const data::MeasurementTable t = synth(200, 15);
  const Model m(generic_spec(), t.column_names());
  const Separation s = separate(m, std::vector<bool>(6, true));
  CostOptions c;
  c.residual = Residual::ape;
  const Evaluator ev(m, t, c);
  EXPECT_THROW(ProjectedEvaluator(ev, s), ConfigError);
}

}  // namespace perfit::model
