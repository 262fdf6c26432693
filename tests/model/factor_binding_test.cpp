#include "perfit/model/factor_binding.hpp"

#include <gtest/gtest.h>

#include "perfit/core/error.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::model {

TEST(FactorBinding, ParsesColumnsAndNumbers) {
  const auto b = parse_factor_bindings("p=n_accelerators,d=1.5e3");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].factor, "p");
  EXPECT_EQ(b[0].column, "n_accelerators");
  EXPECT_EQ(b[1].column, "");
  EXPECT_EQ(b[1].value, 1500.0);
  EXPECT_EQ(to_text(b), "p=n_accelerators,d=1500");
  EXPECT_TRUE(parse_factor_bindings("").empty());
  for (const std::string bad : {"p", "=x", "p=", "p=a,p=b"})
    EXPECT_THROW(parse_factor_bindings(bad), ConfigError) << bad;
}

TEST(FactorBinding, BoundModelPredictsAsTheOriginalOnRenamedColumns) {
  const ModelSpec amdahl = io::load_model("amdahl");
  data::MeasurementTable named, renamed;
  named.add_column(data::Column("p", std::vector<double>{1, 2, 8, 64}));
  renamed.add_column(data::Column("n_accelerators", std::vector<double>{1, 2, 8, 64}));
  const ModelSpec bound = bind_factors(amdahl, parse_factor_bindings("p=n_accelerators"));
  EXPECT_TRUE(bound.factors.empty());  // amdahl declares none
  const ModelSpec generic =
      bind_factors(io::load_model("generic"), parse_factor_bindings("p=n_accelerators"));
  EXPECT_EQ(generic.factors, (std::vector<std::string>{"b", "d", "epochs", "n_accelerators"}));
  const Model a(amdahl, named.column_names()), b(bound, renamed.column_names());
  EXPECT_EQ(b.columns_used(), std::vector<std::string>{"n_accelerators"});
  EXPECT_EQ(scale_column(a), "p");
  EXPECT_EQ(scale_column(b), "n_accelerators");
  Eigen::VectorXd x(2);
  x << 1000.0, 0.05;
  const Eigen::VectorXd pa = Evaluator(a, named).predict(x), pb = Evaluator(b, renamed).predict(x);
  for (Eigen::Index i = 0; i < pa.size(); ++i) EXPECT_EQ(pa(i), pb(i));
  EXPECT_THROW(Model(amdahl, renamed.column_names()), Error);  // unbound: p is not a column
}

TEST(FactorBinding, FixedValuesBecomeConstantsAndUnknownFactorsAreRefused) {
  const ModelSpec generic = io::load_model("generic");
  const ModelSpec bound = bind_factors(generic, parse_factor_bindings("d=1,epochs=1"));
  EXPECT_EQ(Model::factors(bound), (std::vector<std::string>{"b", "p"}));
  try {
    bind_factors(io::load_model("amdahl"), parse_factor_bindings("q=x"));
    FAIL() << "bound a factor the model does not read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("has no factor 'q'; it reads p"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(bindings_for(io::load_model("amdahl"), parse_factor_bindings("d=1,p=n")).size(), 1u);
}

}  // namespace perfit::model
