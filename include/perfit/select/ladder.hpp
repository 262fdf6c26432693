// `select`'s choice when the candidates scale along one column: the simplest adequate model.
// Ideal scaling (ideal-fit), Amdahl's law and the USL are nested (a serial part, then a
// coherency term); Amdahl's law is the default, a simpler model goes first when the data
// cannot tell a serial part from the noise, the richer one when its term is significant, and
// another shape only when the held-out scales say so clearly. Measured against choosing by the
// held-out score alone on 500 synthetic series per family and the MLPerf series
// (docs/selection.md): the held-out score of 2-5 training scales is mostly noise, and a
// choice by it alone was 10% worse than Amdahl's law for every series.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/select/candidates.hpp"

namespace perfit::select {

// Amdahl's law t = a + b / x against ideal scaling t = c / x on every row, both by least
// squares in relative residuals (a, b >= 0; closed form): is the serial part a real?
struct SerialPartTest {
  bool tested = false;       // more rows than Amdahl's two constants
  bool significant = false;  // F above the 95% quantile of F(1, rows - 2)
  double f = std::numeric_limits<double>::quiet_NaN();
  std::size_t dof = 0;
  double amdahl_residual_sd =
      std::numeric_limits<double>::quiet_NaN();  // the noise without repetitions
  double a = 0.0, b = 0.0, c = 0.0;              // Amdahl's a, b and ideal scaling's c
};
SerialPartTest serial_part_test(const data::MeasurementTable& rows, const std::string& column);

// The USL's rung: t = a / x + b + c x (its ideal, contention and coherency parts, linear in
// t1(1 - sigma), t1(sigma - kappa), t1 kappa) against t = a / x + b on every row, least squares
// in relative residuals (closed form): is the coherency term (c > 0) real, at 99%?
bool coherency_significant(const data::MeasurementTable& rows, const std::string& column);

// The pooled sd of ln t within each value of the column (NaN without repetitions).
double within_scale_log_sd(const data::MeasurementTable& rows, const std::string& column);

// With two scales, nothing held out: ideal-fit first when the serial part is not significant,
// else Amdahl's law through them (what two points determine), else the log-log line; the rest
// stay ranked by their in-sample MAPE. Sets the first one's `why`.
void prefer_prior(std::vector<Candidate>& ranked, const data::MeasurementTable& rows,
                  const std::string& column);

// With held-out scales, when every candidate reads only `column` and Amdahl's law competes:
//   1. ideal-fit, when the serial part is not significant and its held-out MAPE is within
//      kIdealGuard of Amdahl's; its `choice_gap` is then how far Amdahl's law (the serial part
//      the test could not see) departs from it one step beyond the largest scale;
//   2. else the USL when its coherency term is significant on every row (its held-out folds,
//      trained on fewer scales, cannot show it), else Amdahl's law: no held-out score moves
//      along the nested models, it is mostly noise there;
//   3. another shape (power law, the naive lines, any other candidate) only when it is below
//      kDisplace times that and the nested model misses the held-out scales by more than
//      kMisfit times the run-to-run noise (repetitions; without them Amdahl's residual sd).
// Otherwise (other factors, no Amdahl) the ranking by score stands. Sets the first one's `why`.
void prefer_simplest_adequate(std::vector<Candidate>& ranked, const data::MeasurementTable& rows,
                              const std::string& column);

}  // namespace perfit::select
