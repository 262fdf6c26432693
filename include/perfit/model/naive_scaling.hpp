// The two naive extrapolations a user checks a model against, as models of constants only (no
// param is fitted): what selection can choose, and the floor it is measured against.
//   ideal:  ideal scaling from the largest measured point, t(x) = t_n * x_n / x
//   loglog: the log-log line through the two largest, t(x) = t_n * (x / x_n)^k,
//           k = ln(t_n / t_{n-1}) / ln(x_n / x_{n-1})
// t_i is the mean of the repetitions at the i-th smallest distinct x. Both predict a single
// scale column; every other column is ignored.
#pragma once

#include <string>
#include <vector>

#include "perfit/model/model.hpp"

namespace perfit::model {

enum class NaiveKind { ideal, loglog };

inline constexpr const char* kNaiveIdealWord = "naive-ideal";
inline constexpr const char* kNaiveLoglogWord = "naive-loglog";

// "naive-ideal" / "naive-loglog" -> true and the kind; any other word -> false.
bool parse_naive_word(const std::string& word, NaiveKind& kind);
const char* naive_word(NaiveKind kind);

// The predictor from (x, t) pairs of the scale column `column`, as a ModelSpec whose values are
// `constants:` (t_last, x_last[, slope]) and whose expression reads `column`.
// Throws: DataError for too few distinct positive x (ideal: 1, loglog: 2) or a mean time <= 0.
ModelSpec naive_spec(NaiveKind kind, const std::string& column, const std::vector<double>& x,
                     const std::vector<double>& t);

}  // namespace perfit::model
