// Extra-P's single-parameter model search (extra-p/extrap, modelers/single_parameter), so an
// Extra-P user gets the model Extra-P would give: the mean of the repetitions per point; the
// constant model; then every hypothesis c0 + c1 * x^(a/b) * log2(x)^j of Extra-P's 43 default
// building blocks, its coefficients by least squares, scored by leave-one-out SMAPE (Extra-P's
// sum over the left-out points divided by n-1); a hypothesis whose term contributes less than
// 0.05% of every measured value is rejected; the lowest SMAPE wins, the constant model if none
// beats it. Log terms only when every x >= 1. perfit's continuous-exponent `pmnf` is the DE fit
// of the same family; `select --models pmnf-search` puts both side by side.
#pragma once

#include <string>
#include <vector>

namespace perfit::model {

struct PmnfHypothesis {
  bool constant = true;
  int num = 0, den = 1, log_exp = 0;  // x^(num/den) * log2(x)^log_exp
  double c0 = 0.0, c1 = 0.0;
  double smape = 0.0;                 // leave-one-out (constant: over all points), percent
  double eval(double x) const;
  // "c0 + c1*x^(3/2)*log2(x)^1" in the model language, x the column name.
  std::string expression(const std::string& x) const;
};

// x, y: one entry per measurement (repetitions as several entries of the same x).
// Throws: DataError when there are fewer than 3 distinct x.
PmnfHypothesis search_single_parameter(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace perfit::model
