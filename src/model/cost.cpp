#include "perfit/model/cost.hpp"

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::model {

Residual parse_residual(const std::string& name) {
  if (name == "rel_sq") return Residual::rel_sq;
  if (name == "sq_log") return Residual::sq_log;
  if (name == "ape") return Residual::ape;
  if (name == "sq") return Residual::sq;
  throw ConfigError("residual '" + name +
                    "' is not one of rel_sq (relative squared error), "
                    "sq_log (squared log error), ape (absolute percentage error), sq (squared)");
}

Penalty parse_penalty(const std::string& name) {
  if (name == "none") return Penalty::none;
  if (name == "l1") return Penalty::l1;
  if (name == "l2") return Penalty::l2;
  throw ConfigError("penalty '" + name + "' is not one of none, l1, l2");
}

const char* to_string(Residual r) {
  switch (r) {
    case Residual::rel_sq:
      return "rel_sq";
    case Residual::sq_log:
      return "sq_log";
    case Residual::ape:
      return "ape";
    case Residual::sq:
      return "sq";
  }
  return "?";
}

const char* to_string(Penalty p) {
  switch (p) {
    case Penalty::none:
      return "none";
    case Penalty::l1:
      return "l1";
    case Penalty::l2:
      return "l2";
  }
  return "?";
}

void CostOptions::validate() const {
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) {
    throw ConfigError("cost lambda must be a finite number >= 0, got " + std::to_string(lambda));
  }
}

namespace {

// A number, or `auto`: chosen by cross-validation at fit time.
Option<CostOptions> lambda_option() {
  const std::string expected = "auto or a number in " + range_text(0.0, 1e12);
  return {"lambda",
          "lambda",
          "regularisation weight (0: none; auto: chosen from a grid by leave-one-scale-out "
          "cross-validation on the rows, docs/validation.md)",
          expected,
          OptionKind::number,
          [expected](CostOptions& o, const std::string& t) {
            o.lambda_auto = t == "auto";
            o.lambda = o.lambda_auto ? 0.0 : parse_real(t, 0.0, 1e12, expected);
          },
          [](const CostOptions& o) {
            return o.lambda_auto ? std::string("auto") : format_real(o.lambda);
          }};
}

}  // namespace

const OptionTable<CostOptions>& cost_option_table() {
  using S = CostOptions;
  static const OptionTable<CostOptions> t = {
      enum_option<S>(
          "residual", [](S & o) -> auto& { return o.residual; },
          std::vector<Residual>{Residual::rel_sq, Residual::sq_log, Residual::ape, Residual::sq},
          parse_residual, [](Residual v) { return to_string(v); },
          "per-row residual (docs/models.md)"),
      text_option<S>(
          "weight_column", [](S & o) -> auto& { return o.weight_column; }, "a column name",
          "column of per-row weights (empty: all rows weigh 1)"),
      enum_option<S>(
          "penalty", [](S & o) -> auto& { return o.penalty; },
          std::vector<Penalty>{Penalty::none, Penalty::l1, Penalty::l2}, parse_penalty,
          [](Penalty v) { return to_string(v); }, "regularisation of the bound-normalised params"),
      lambda_option(),
  };
  return t;
}

}  // namespace perfit::model
