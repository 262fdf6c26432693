// The naive extrapolations a user checks a model against, as models of constants only (no
// param is fitted): what selection can choose, and the floor it is measured against.
//   ideal:     ideal scaling from the largest measured point, t(x) = t_n * x_n / x
//   loglog:    the log-log line through the two largest, t(x) = t_n * (x / x_n)^k,
//              k = ln(t_n / t_{n-1}) / ln(x_n / x_{n-1})
//   ideal_fit: ideal scaling through every measured scale, t(x) = c / x, c the geometric mean
//              of t_i * x_i: on ideal data it has the noise of all scales, not of the last one
// t_i is the mean of the repetitions at the i-th smallest distinct x. All predict a single
// scale column; every other column is ignored.
#pragma once

#include <string>
#include <vector>

#include "perfit/model/model.hpp"

namespace perfit::model {

enum class NaiveKind { ideal, loglog, ideal_fit };

inline constexpr const char* kNaiveIdealWord = "naive-ideal";
inline constexpr const char* kNaiveLoglogWord = "naive-loglog";
inline constexpr const char* kIdealFitWord = "ideal-fit";

// "naive-ideal" / "naive-loglog" / "ideal-fit" -> true and the kind; any other word -> false.
bool parse_naive_word(const std::string& word, NaiveKind& kind);
const char* naive_word(NaiveKind kind);

// The predictor from (x, t) pairs of the scale column `column`, as a ModelSpec whose values are
// `constants:` (t_last, x_last[, slope], or c) and whose expression reads `column`.
// Throws: DataError for too few distinct positive x (ideal, ideal_fit: 1; loglog: 2) or a mean
// time <= 0.
ModelSpec naive_spec(NaiveKind kind, const std::string& column, const std::vector<double>& x,
                     const std::vector<double>& t);

// How many of those constants are estimated from the times (t_last, slope, c; x_last is a
// measured scale): each takes a degree of freedom from the noise estimate.
constexpr std::size_t naive_estimated_constants(NaiveKind kind) {
  return kind == NaiveKind::loglog ? 2 : 1;
}

}  // namespace perfit::model
