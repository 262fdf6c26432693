// Extra-P's hypothesis search (extra-p/extrap: modelers/single_parameter/basic.py and
// modelers/multi_parameter/multi_parameter_modeler.py), so an Extra-P user gets the model
// Extra-P would give. Measurements are reduced to the mean of the repetitions per point.
//
// One parameter: the constant model; then every hypothesis c0 + c1 * x^(a/b) * log2(x)^j of
// Extra-P's default building blocks (43, or 85 with negative exponents), its coefficients by
// least squares, scored by leave-one-out SMAPE (sum over the left-out points / (n-1)); a
// hypothesis whose term contributes less than 0.05% of every measured value is rejected; the
// lowest SMAPE wins, the constant model if none beats it. Log terms only when every x >= 1
// (x > 1 with negative exponents).
//
// Two parameters: each parameter's single-parameter model from the longest lines of points
// along it (the mean over the lines of equal length, Extra-P's "auto" point selection); the
// non-constant ones are combined as c0 + c1*f1*f2, c0 + c1*f1 + c2*f2, c0 + c1*f1 + c2*f1*f2,
// c0 + c1*f2 + c2*f1*f2 with coefficients by least squares on every point, scored by in-sample
// SMAPE, terms under 0.05% rejected. perfit's continuous-exponent `pmnf` is the DE fit of the
// same family; `select --models pmnf-search` puts both side by side.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perfit::model {

// x_param^(num/den) * log2(x_param)^log_exp
struct PmnfFactor {
  std::size_t param = 0;
  int num = 0, den = 1, log_exp = 0;
};

struct PmnfTerm {
  std::vector<PmnfFactor> factors;  // a product; more than one only in two-parameter models
  double coefficient = 0.0;
  double basis(const std::vector<double>& x) const;  // the product without the coefficient
};

struct PmnfHypothesis {
  double c0 = 0.0;
  std::vector<PmnfTerm> terms;  // empty: the constant model
  double smape = 0.0;           // percent; leave-one-out for one parameter, in-sample for two
  bool leave_one_out = true;
  bool constant() const { return terms.empty(); }
  double eval(const std::vector<double>& x) const;  // x: one value per parameter
  // "c0 + c1*p^(3/2)*log2(d) + c2*d^(-1/2)" in the model language, names[param] the columns.
  std::string expression(const std::vector<std::string>& names) const;
};

struct SearchOptions {
  bool negative_exponents = false;  // Extra-P's option for strong scaling: x^(-a/b) blocks too
};

// x: one vector per parameter (1 or 2), each one entry per measurement (repetitions as several
// entries of the same point); y: the measured values.
// Throws: DataError when a parameter has fewer than 3 distinct values; ConfigError for more
// than 2 parameters.
PmnfHypothesis search_hypothesis(const std::vector<std::vector<double>>& x,
                                 const std::vector<double>& y, const SearchOptions& opt = {});

// The single-parameter search on (x, y) pairs, Extra-P's basic modeler.
PmnfHypothesis search_single_parameter(const std::vector<double>& x, const std::vector<double>& y,
                                       const SearchOptions& opt = {});

}  // namespace perfit::model
