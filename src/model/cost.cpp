#include "perfit/model/cost.hpp"

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit::model {

Residual parse_residual(const std::string& name) {
  if (name == "rel_sq") return Residual::rel_sq;
  if (name == "sq_log") return Residual::sq_log;
  if (name == "ape") return Residual::ape;
  if (name == "sq") return Residual::sq;
  throw ConfigError("residual '" + name + "' is not one of rel_sq (relative squared error), "
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
    case Residual::rel_sq: return "rel_sq";
    case Residual::sq_log: return "sq_log";
    case Residual::ape: return "ape";
    case Residual::sq: return "sq";
  }
  return "?";
}

const char* to_string(Penalty p) {
  switch (p) {
    case Penalty::none: return "none";
    case Penalty::l1: return "l1";
    case Penalty::l2: return "l2";
  }
  return "?";
}

void CostOptions::validate() const {
  if (!(lambda >= 0.0) || !std::isfinite(lambda)) {
    throw ConfigError("cost lambda must be a finite number >= 0, got " + std::to_string(lambda));
  }
}

}  // namespace perfit::model
