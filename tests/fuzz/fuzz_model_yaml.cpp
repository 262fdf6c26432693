// Model YAML: parsed, validated, compiled to tapes and evaluated on a few rows, or refused
// with a typed error.
#include <cmath>

#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/model/evaluator.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace perfit;
  try {
    const model::ModelSpec spec =
        io::parse_model_yaml(std::string(fuzz::as_text(data, size)), "fuzz.yaml");
    const auto factors = model::Model::factors(spec);
    const model::Model m(spec, factors);
    data::MeasurementTable t;
    for (const auto& f : factors)
      t.add_column(data::Column(f, std::vector<double>{1.0, 2.0, 64.0}));
    if (factors.empty()) t.add_column(data::Column("p", std::vector<double>{1.0, 2.0, 64.0}));
    const model::Evaluator ev(m, t);
    Eigen::VectorXd x(static_cast<Eigen::Index>(m.n_params()));
    for (std::size_t i = 0; i < m.n_params(); ++i)
      x(static_cast<Eigen::Index>(i)) = m.from_unit(i, 0.5);
    (void)ev.predict(x);
    (void)ev.term_values(x);
    (void)io::model_to_yaml(spec);
  } catch (const Error&) {
  }
  return 0;
}
