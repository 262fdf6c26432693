#include "perfit/model/naive_scaling.hpp"

#include <cmath>
#include <iterator>
#include <map>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::model {

bool parse_naive_word(const std::string& word, NaiveKind& kind) {
  if (word == kNaiveIdealWord)
    kind = NaiveKind::ideal;
  else if (word == kNaiveLoglogWord)
    kind = NaiveKind::loglog;
  else if (word == kIdealFitWord)
    kind = NaiveKind::ideal_fit;
  else
    return false;
  return true;
}

const char* naive_word(NaiveKind kind) {
  switch (kind) {
    case NaiveKind::ideal:
      return kNaiveIdealWord;
    case NaiveKind::loglog:
      return kNaiveLoglogWord;
    case NaiveKind::ideal_fit:
      return kIdealFitWord;
  }
  return kNaiveIdealWord;
}

ModelSpec naive_spec(NaiveKind kind, const std::string& column, const std::vector<double>& x,
                     const std::vector<double>& t) {
  std::map<double, std::pair<double, std::size_t>> mean;  // x -> (sum, count)
  for (std::size_t i = 0; i < x.size() && i < t.size(); ++i) {
    if (!(x[i] > 0.0) || !std::isfinite(x[i]) || !std::isfinite(t[i])) continue;
    auto& [sum, n] = mean[x[i]];
    sum += t[i];
    ++n;
  }
  const std::size_t need = kind == NaiveKind::loglog ? 2 : 1;
  const std::string who = std::string(naive_word(kind)) + " over '" + column + "'";
  if (mean.size() < need) {
    throw DataError(who + ": found " + std::to_string(mean.size()) +
                    " distinct positive value(s), expected at least " + std::to_string(need));
  }
  const auto last = std::prev(mean.end());
  const double x_n = last->first,
               t_n = last->second.first / static_cast<double>(last->second.second);
  if (!(t_n > 0.0))
    throw DataError(who + ": the mean time at " + column + "=" + format_g(x_n) + " is " +
                    format_g(t_n) + ", expected > 0");
  ModelSpec s;
  s.name = std::string(naive_word(kind));
  for (auto& ch : s.name) ch = ch == '-' ? '_' : ch;
  s.origin = naive_word(kind);
  s.factors = {column};
  if (kind == NaiveKind::ideal_fit) {
    double log_sum = 0.0;
    for (const auto& [x_i, sum_n] : mean) {
      const double t_i = sum_n.first / static_cast<double>(sum_n.second);
      if (!(t_i > 0.0))
        throw DataError(who + ": the mean time at " + column + "=" + format_g(x_i) + " is " +
                        format_g(t_i) + ", expected > 0");
      log_sum += std::log(t_i * x_i);
    }
    s.constants = {{"c", std::exp(log_sum / static_cast<double>(mean.size()))}};
    s.description = "ideal scaling through every measured scale: c / " + column +
                    ", c the geometric mean of t * " + column;
    s.expression = "c / " + column;
    return s;
  }
  s.constants = {{"t_last", t_n}, {"x_last", x_n}};
  if (kind == NaiveKind::ideal) {
    s.description = "ideal scaling from the largest measured point: t_last * x_last / " + column;
    s.expression = "t_last * x_last / " + column;
    return s;
  }
  const auto prev = std::prev(last);
  const double x_p = prev->first,
               t_p = prev->second.first / static_cast<double>(prev->second.second);
  if (!(t_p > 0.0))
    throw DataError(who + ": the mean time at " + column + "=" + format_g(x_p) + " is " +
                    format_g(t_p) + ", expected > 0");
  s.constants.push_back({"slope", std::log(t_n / t_p) / std::log(x_n / x_p)});
  s.description = "the log-log line through the two largest measured points: t_last * (" + column +
                  " / x_last)^slope";
  s.expression = "t_last * (" + column + " / x_last)^slope";
  return s;
}

}  // namespace perfit::model
