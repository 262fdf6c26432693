// FitReport's text forms (brief and full), for logs and for whoever holds a report in hand.
#include <fmt/format.h>

#include <string>

#include "perfit/core/text.hpp"
#include "perfit/fit/engine.hpp"

namespace perfit::fit {

namespace {

// "  what                       text\n"
std::string line(const std::string& what, const std::string& text) {
  return fmt::format("  {:<26} {}\n", what, text);
}

}  // namespace

std::string FitReport::brief_report() const {
  return "stopped: " + std::string(de::to_string(reason)) + ", cost " + format_g(cost) + " after " +
         std::to_string(generations) + " generations (" + std::to_string(evaluations) +
         " evaluations) in " + format_g(seconds, 3) + " s";
}

std::string FitReport::full_report(const std::vector<std::string>& names) const {
  std::string s = "fit report\n";
  s += line("stop reason", fmt::format("{} ({})", de::to_string(reason), message));
  s += line("cost", format_g(cost, 10));
  const std::string polish =
      polish_improved ? "the polish lowered it by " + format_g(cost_before_polish - cost, 3)
                      : "the polish did not lower it";
  s += line("cost before polish",
            fmt::format("{} ({}, {} iterations)", format_g(cost_before_polish, 10), polish,
                        polish_iterations));
  s += line("search", fmt::format("{} generations, {} evaluations, {} epochs (best island {})",
                                  generations, evaluations, epochs, best_island));
  s += line(
      "time",
      fmt::format("{} s, of which DE {} s (migration {} s, vote {} s, row allreduce {} s)",
                  format_g(seconds, 4), format_g(de_seconds, 4), format_g(migration_seconds, 3),
                  format_g(vote_seconds, 3), format_g(reduce_seconds, 3)));
  s += line("rows (this rank)",
            fmt::format("{} rows, {} evaluated configurations{}", rows, configurations,
                        configurations < rows ? " (compressed)" : ""));
  s += line("metrics",
            fmt::format("MAPE {:.4g}%, RMSE {:.4g}, R^2 {:.6f}, GMAE {:.4g}%, max rel err {:.4g}%",
                        metrics.mape, metrics.rmse, metrics.r2, metrics.gmae, metrics.max_rel_err));
  if (!lambda.split.empty()) {
    s += line("lambda", fmt::format("{} chosen by {} over {} folds", format_g(lambda.lambda),
                                    lambda.split, lambda.folds));
  }
  if (bootstrap.requested > 0) {
    s += line("bootstrap", fmt::format("{} of {} refits, resampled by {}, {}% intervals",
                                       bootstrap.replicates.rows(), bootstrap.requested,
                                       bootstrap.resampled, format_g(100.0 * bootstrap.ci, 3)));
  }
  s += line("interrupted", checkpointed ? "yes, state checkpointed" : "no");
  for (Eigen::Index k = 0; k < params.size(); ++k) {
    const auto i = static_cast<std::size_t>(k);
    std::string notes;
    if (i < linear.size() && linear[i]) notes += " linear (least squares)";
    if (i < at_bound.size() && at_bound[i]) {
      notes += " at a bound";
      if (i < past_bound.size())
        notes += " (cost past it " + format_g(100.0 * past_bound[i], 2) + "%)";
    }
    if (i < identifiability.identifiable.size() && !identifiability.identifiable[i])
      notes += " not determined";
    if (bootstrap.requested > 0 && k < bootstrap.lo.size()) {
      notes += " interval " + format_g(bootstrap.lo(k)) + ".." + format_g(bootstrap.hi(k));
    }
    s += line(i < names.size() ? names[i] : "param " + std::to_string(k),
              format_g(params(k), 10) + notes);
  }
  for (const auto& w : identifiability.warnings) s += "  warning: " + w + "\n";
  return s;
}

}  // namespace perfit::fit
