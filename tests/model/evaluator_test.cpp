#include "perfit/model/evaluator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "perfit/core/error.hpp"
#include "perfit/core/rng.hpp"
#include "perfit/data/synth.hpp"

namespace perfit::model {

using data::Column;
using data::MeasurementTable;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Rows of p (1..1024), b (16..1024), d, and a positive time column.
MeasurementTable grid(std::size_t n, std::uint64_t seed = 1) {
  Rng r(seed);
  std::vector<std::int64_t> p(n), b(n);
  std::vector<double> d(n), t(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = std::int64_t{1} << r.below(11);
    b[i] = std::int64_t{16} << r.below(7);
    d[i] = r.uniform(1e3, 1e6);
    t[i] = r.uniform(1.0, 100.0);
  }
  MeasurementTable m;
  m.add_column(Column("p", std::move(p)));
  m.add_column(Column("b", std::move(b)));
  m.add_column(Column("d", std::move(d)));
  m.add_column(Column("time_s", std::move(t)));
  m.attributes()["target"] = std::string("time_s");
  return m;
}

// The direct C++ versions read the params by position, so all four stay declared; a model may
// not leave a param unused, so one the expression does not mention is added times 0.
ModelSpec spec4(const std::string& expr) {
  ModelSpec s;
  s.name = "t";
  s.expression = expr;
  s.params = {
      {"c0", 0.1, 2, false}, {"c1", 1e-6, 1, true}, {"c2", 0.5, 1.5, false}, {"c3", -1, 1, false}};
  for (const auto& p : s.params) {
    if (expr.find(p.name) == std::string::npos) s.expression += " + 0*" + p.name;
  }
  return s;
}

using Direct = std::function<double(double p, double b, double d, const double* c)>;

struct Case {
  const char* expr;
  Direct f;
};

TEST(Evaluator, EveryOperationMatchesDirectCppTo1e12) {
  const std::vector<Case> cases = {
      {"c0 + c1*d/(b*p)",
       [](double p, double b, double d, const double* c) { return c[0] + c[1] * d / (b * p); }},
      {"c0 - c3*p + b/c2",
       [](double p, double b, double, const double* c) { return c[0] - c[3] * p + b / c[2]; }},
      {"b^c2 * c1",
       [](double, double b, double, const double* c) { return std::pow(b, c[2]) * c[1]; }},
      {"(p+c0)^(c2+1)",
       [](double p, double, double, const double* c) { return std::pow(p + c[0], c[2] + 1); }},
      {"c0^p / 1e3",
       [](double p, double, double, const double* c) { return std::pow(c[0], p) / 1e3; }},
      {"log2(p)^c2 + log(d)*c0",
       [](double p, double, double d, const double* c) {
         return std::pow(std::log2(p), c[2]) + std::log(d) * c[0];
       }},
      {"exp(-c2*log(b)) + sqrt(d)*c1",
       [](double, double b, double d, const double* c) {
         return std::exp(-c[2] * std::log(b)) + std::sqrt(d) * c[1];
       }},
      {"abs(c3*p - b) + min(c0*b, p) + max(c2, 1/p)",
       [](double p, double b, double, const double* c) {
         return std::fabs(c[3] * p - b) + std::fmin(c[0] * b, p) + std::fmax(c[2], 1 / p);
       }},
      {"ceil(p/c2) + floor(b*c0) + p^2 - p^3/b + p^-1",
       [](double p, double b, double, const double* c) {
         return std::ceil(p / c[2]) + std::floor(b * c[0]) + p * p - p * p * p / b + 1 / p;
       }},
      {"-(c1) + c0*(p-1)/p + c3*c2*log2(p)*d",
       [](double p, double, double d, const double* c) {
         return -c[1] + c[0] * (p - 1) / p + c[3] * c[2] * std::log2(p) * d;
       }},
      {"c0 + c1", [](double, double, double, const double* c) { return c[0] + c[1]; }},
  };
  const MeasurementTable t = grid(1000);
  Rng r(5);
  for (const auto& k : cases) {
    const Model model(spec4(k.expr), t.column_names());
    for (unsigned threads : {1u, 2u}) {
      EvaluatorOptions eo;
      eo.block_rows = 64;  // 1000 rows: 15 full blocks and a partial one
      eo.threads = threads;
      const Evaluator ev(model, t, {}, eo);
      for (int rep = 0; rep < 3; ++rep) {
        Eigen::Vector4d c;
        for (int i = 0; i < 4; ++i) c(i) = model.from_unit(i, r.uniform());
        const Eigen::VectorXd pred = ev.predict(c);
        for (std::size_t i = 0; i < t.rows(); ++i) {
          const double want =
              k.f(t.column("p").i64()[i], t.column("b").i64()[i], t.column("d").f64()[i], c.data());
          ASSERT_NEAR(pred(i), want, 1e-12 * std::fabs(want) + 1e-300) << k.expr << " row " << i;
        }
      }
    }
  }
}

TEST(Evaluator, PopulationCostsEqualCostsOfEachCandidateAlone) {
  const MeasurementTable t = grid(3000);
  const Model model(spec4("c0 + c1*d/(b*p) * b^c2 + c3*log2(p)"), t.column_names());
  const Evaluator ev(model, t);
  Rng r(2);
  Eigen::MatrixXd pop(4, 17);
  for (int j = 0; j < pop.cols(); ++j) {
    for (int i = 0; i < 4; ++i) pop(i, j) = model.from_unit(i, r.uniform());
  }
  Eigen::VectorXd costs(pop.cols());
  ev.costs(pop, costs);
  for (int j = 0; j < pop.cols(); ++j) {
    const Eigen::VectorXd pred = ev.predict(pop.col(j));
    if (pred.minCoeff() < 0) {
      EXPECT_TRUE(std::isinf(costs(j)));
      continue;
    }
    const double direct =
        ((pred.array() - ev.measured().array()) / ev.measured().array()).square().mean();
    EXPECT_NEAR(costs(j), direct, 1e-12 * direct) << j;
    EXPECT_EQ(costs(j), ev.cost(pop.col(j)));
  }
}

// A joint fit's group indicators are 0 outside their group's rows: the kernel skips such a
// term on rows outside its column's span (within a block, at packet granularity and in the
// scalar tail), and every prediction and cost stays what the sum says.
TEST(Evaluator, ColumnsZeroOutsideASpanPredictExactlyTheSum) {
  MeasurementTable t = grid(2503);  // two blocks of 1024 and a tail that is not a whole packet
  std::vector<double> in_a(t.rows(), 0.0), in_b(t.rows(), 0.0), edge(t.rows(), 0.0);
  for (std::size_t i = 1000; i < 1030; ++i) in_a[i] = 1.0;      // straddles the first block's end
  for (std::size_t i = 2499; i < t.rows(); ++i) in_b[i] = 1.0;  // the tail only
  edge[0] = 2.0;
  edge[t.rows() - 1] = 3.0;  // zero in between: its span is every row
  t.add_column(Column("in_a", std::move(in_a)));
  t.add_column(Column("in_b", std::move(in_b)));
  t.add_column(Column("edge", std::move(edge)));
  const ModelSpec s = spec4("c0 + in_a*c1*d + in_b*c3*b + edge*c2*p");
  const Model model(s, t.column_names());
  const Evaluator ev(model, t);
  const Eigen::Vector4d x(0.5, 1e-3, 0.9, 0.25);
  const Eigen::VectorXd pred = ev.predict(x);
  const std::vector<double> d = t.column("d").to_double(), b = t.column("b").to_double(),
                            p = t.column("p").to_double();
  const std::vector<double> a = t.column("in_a").to_double(), c = t.column("in_b").to_double(),
                            e = t.column("edge").to_double();
  double direct = 0.0;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    const double want = 0.5 + a[i] * 1e-3 * d[i] + c[i] * 0.25 * b[i] + e[i] * 0.9 * p[i];
    ASSERT_DOUBLE_EQ(pred(static_cast<Eigen::Index>(i)), want) << "row " << i;
    direct += std::pow(want / ev.measured()(static_cast<Eigen::Index>(i)) - 1.0, 2);
  }
  EXPECT_NEAR(ev.cost(x), direct / static_cast<double>(t.rows()), 1e-12 * direct);
}

TEST(Evaluator, NanInfOrNegativePredictionsGiveInfiniteCostNotACrash) {
  const MeasurementTable t = grid(500);
  for (const char* expr : {"c3 - 2", "log(c3*p)", "c0/(c3*0)", "sqrt(c3 - 5) + p"}) {
    const Model model(spec4(expr), t.column_names());
    const Evaluator ev(model, t);
    Eigen::Vector4d c(1.0, 1e-3, 1.0, -0.5);
    EXPECT_TRUE(std::isinf(ev.cost(c))) << expr;
    EXPECT_GT(ev.cost(c), 0) << expr;
  }
}

TEST(Evaluator, ResidualKindsWeightsAndPenalty) {
  MeasurementTable t;
  t.add_column(Column("p", std::vector<double>{1, 2}));
  t.add_column(Column("w", std::vector<double>{1, 3}));
  t.add_column(Column("time_s", std::vector<double>{2, 4}));
  t.attributes()["target"] = std::string("time_s");
  ModelSpec s;
  s.name = "lin";
  s.expression = "c0*p";
  s.params = {{"c0", 0, 10, false}};
  const Model model(s, t.column_names());
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 3.0);  // predicts 3, 6
  auto cost = [&](Residual r, const std::string& w = "", Penalty pen = Penalty::none,
                  double lam = 0) {
    CostOptions o;
    o.residual = r;
    o.weight_column = w;
    o.penalty = pen;
    o.lambda = lam;
    return Evaluator(model, t, o).cost(x);
  };
  EXPECT_DOUBLE_EQ(cost(Residual::rel_sq), (0.25 + 0.25) / 2);
  EXPECT_DOUBLE_EQ(cost(Residual::sq), (1.0 + 4.0) / 2);
  EXPECT_DOUBLE_EQ(cost(Residual::ape), (0.5 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(cost(Residual::sq_log), std::pow(std::log(1.5), 2));
  EXPECT_DOUBLE_EQ(cost(Residual::sq, "w"), (1.0 * 1 + 3.0 * 4) / 4);
  EXPECT_DOUBLE_EQ(cost(Residual::rel_sq, "", Penalty::l2, 0.1), 0.25 + 0.1 * 0.09);
  EXPECT_DOUBLE_EQ(cost(Residual::rel_sq, "", Penalty::l1, 0.1), 0.25 + 0.1 * 0.3);
}

// Every vectorised path (fused lincomb kernels with their scalar tails, the stored-prediction
// path of non-linear expressions, population costs, the LM residual vector) agrees with the
// one scalar definition residual(kind, predicted, measured), weighted or not.
TEST(Evaluator, EveryPathMatchesTheScalarResidualForEveryKind) {
  MeasurementTable t = grid(3001);  // not a multiple of any packet block: the tails run too
  Rng r(9);
  std::vector<double> w(t.rows());
  for (auto& v : w) v = r.uniform(0.5, 2.0);
  t.add_column(Column("w", std::move(w)));
  for (const char* expr : {"c0 + c1*d/(b*p) + c2*log2(p)", "sqrt(c0 + c1*d/(b*p)) * c2^2"}) {
    const Model model(spec4(expr), t.column_names());
    Eigen::MatrixXd pop(4, 5);
    for (int j = 0; j < pop.cols(); ++j) {
      for (int i = 0; i < 4; ++i) pop(i, j) = model.from_unit(i, r.uniform());
      pop(3, j) = std::abs(pop(3, j));  // positive predictions: every kind has a finite cost
    }
    for (const Residual kind : {Residual::rel_sq, Residual::sq_log, Residual::ape, Residual::sq}) {
      for (const std::string weight : {"", "w"}) {
        CostOptions o;
        o.residual = kind;
        o.weight_column = weight;
        o.penalty = Penalty::none;
        const Evaluator ev(model, t, o);
        Eigen::VectorXd costs(pop.cols());
        ev.costs(pop, costs);
        const auto& wv = t.column("w").f64();
        for (int j = 0; j < pop.cols(); ++j) {
          const Eigen::VectorXd pred = ev.predict(pop.col(j));
          double sum = 0, wsum = 0;
          for (Eigen::Index i = 0; i < pred.size(); ++i) {
            const double wi = weight.empty() ? 1.0 : wv[static_cast<std::size_t>(i)];
            sum += wi * residual(kind, pred(i), ev.measured()(i));
            wsum += wi;
          }
          const double want = sum / wsum;
          const std::string what = std::string(expr) + " " + to_string(kind) + " w=" + weight;
          EXPECT_NEAR(costs(j), want, 1e-12 * want) << what;
          EXPECT_NEAR(ev.cost(pop.col(j)), want, 1e-12 * want) << what;
          EXPECT_NEAR(ev.residual_vector(pop.col(j)).squaredNorm(), want, 1e-12 * want) << what;
        }
      }
    }
  }
}

TEST(Evaluator, TermValuesSumToThePrediction) {
  const MeasurementTable t = grid(700);
  ModelSpec s = spec4("startup + compute + comm");
  s.expression = "startup + compute + comm";  // the terms use every param
  s.terms = {{"startup", "c0"}, {"compute", "c1*d/(b*p)*b^c2"}, {"comm", "abs(c3)*log2(p)"}};
  const Model model(s, t.column_names());
  const Evaluator ev(model, t);
  const Eigen::Vector4d c(1.5, 1e-3, 0.9, 0.2);
  const Eigen::MatrixXd terms = ev.term_values(c);
  ASSERT_EQ(terms.cols(), 3);
  const Eigen::VectorXd pred = ev.predict(c);
  for (Eigen::Index i = 0; i < pred.size(); ++i) {
    EXPECT_NEAR(terms.row(i).sum(), pred(i), 1e-12 * pred(i));
    EXPECT_EQ(terms(i, 0), 1.5);
  }
}

TEST(Evaluator, BadTargetsAndTextColumnsAreDataErrors) {
  MeasurementTable t = grid(10);
  t.add_column(Column("fw", std::vector<std::string>(10, "tf")));
  ModelSpec s = spec4("c0*fw");
  EXPECT_THAT([&] { Evaluator(Model(s, t.column_names()), t); },
              ThrowsMessage<DataError>(HasSubstr("uses column 'fw', which holds text")));
  t.columns()[3].f64()[4] = -1.0;
  const Model ok(spec4("c0*p"), t.column_names());
  EXPECT_THAT([&] { Evaluator(ok, t); },
              ThrowsMessage<DataError>(HasSubstr("row 4 is -1.000000; measured times must be")));
}

}  // namespace perfit::model
