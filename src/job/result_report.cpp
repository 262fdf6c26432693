#include "perfit/job/result_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <variant>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/job/groups.hpp"

namespace perfit::job {

namespace {

// Advice on a constant at a bound, only where widening can change the fit: the fit measured
// the cost with it moved past the bound (io::ResultParam::past_bound). Freeing one constant
// lowers the cost by about 1/rows even where it explains nothing (the F-test's yardstick), so
// only a fall beyond 2/rows (and 0.1%) counts as the data pressing on the bound.
bool pressed_on(const io::ResultParam& p, std::size_t rows) {
  const double noise = std::max(1e-3, 2.0 / static_cast<double>(std::max<std::size_t>(rows, 1)));
  return p.at_bound && std::isfinite(p.past_bound) && p.past_bound < -noise;
}

std::string bound_note(const io::ResultParam& p, std::size_t rows) {
  if (std::isnan(p.past_bound))
    return "  at a bound: widen it and refit, unless the bound is physical";
  if (std::isinf(p.past_bound)) {
    return "  at a bound the model cannot cross (past it, it predicts a non-positive time on some "
           "row)";
  }
  if (pressed_on(p, rows)) {
    return "  at a bound the data press on (the cost falls " + format_g(-100.0 * p.past_bound, 2) +
           "% past it): widen it and refit, unless the bound is physical";
  }
  return "  at a bound the data do not press on (past it the cost changes " +
         format_g(100.0 * p.past_bound, 2) +
         "%, within the noise): widening will not change the fit";
}

// printf into a growing string: the table is text for the terminal and for Python alike.
__attribute__((format(printf, 2, 3))) void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t old = out.size();
    out.resize(old + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + old, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(old + static_cast<std::size_t>(n));
  }
  va_end(again);
}

// A group's value of constant c (NaN when it has none).
double group_value(const io::ResultFile& r, const Groups& g, const std::string& c,
                   const std::string& label) {
  for (const auto& p : r.params) {
    if (param_group(g, p.name) == std::pair<std::string, std::string>{c, label}) return p.value;
  }
  return std::nan("");
}

// Mean and relative spread (sd / |mean|) of a constant's group values: how much was shared.
std::pair<double, double> group_spread(const io::ResultFile& r, const Groups& g,
                                       const std::string& c) {
  double sum = 0.0, ss = 0.0;
  for (const auto& label : g.labels) sum += group_value(r, g, c, label);
  const double mean = sum / static_cast<double>(g.labels.size());
  for (const auto& label : g.labels) ss += std::pow(group_value(r, g, c, label) - mean, 2);
  return {mean, std::sqrt(ss / static_cast<double>(g.labels.size())) / std::fabs(mean)};
}

// A joint fit: the shared constants once, then one row per group and one column per constant
// with a copy per group, with their mean and relative spread.
std::string group_table_text(const io::ResultFile& r) {
  const Groups g = groups_of(r);
  std::string out, shared;
  for (const auto& p : r.params) {
    if (param_group(g, p.name).second.empty())
      shared += (shared.empty() ? "" : ", ") + p.name + " " + format_g(p.value);
  }
  appendf(out, "groups by %s: %zu (param c__k is group k's c)\n  shared: %s\n", join(g.by).c_str(),
          g.labels.size(), shared.empty() ? "(none)" : shared.c_str());
  if (!g.pooled.empty()) {
    appendf(out, "  pooled, drawn toward their common value (%s): %s\n", g.pool_how.c_str(),
            join(g.pooled).c_str());
  }
  if (!g.per_group.empty())
    appendf(out, "  per group, independently: %s\n", join(g.per_group).c_str());
  std::vector<std::string> copies = g.pooled;
  copies.insert(copies.end(), g.per_group.begin(), g.per_group.end());
  appendf(out, "  %-24s", "group");
  for (const auto& c : copies) appendf(out, " %14s", c.c_str());
  for (const auto& label : g.labels) {
    appendf(out, "\n  %-24s", label.c_str());
    for (const auto& c : copies) appendf(out, " %14.6g", group_value(r, g, c, label));
  }
  appendf(out, "\n  %-24s", "mean");
  for (const auto& c : copies) appendf(out, " %14.6g", group_spread(r, g, c).first);
  appendf(out, "\n  %-24s", "spread (sd/|mean|)");
  for (const auto& c : copies) appendf(out, " %13.3g%%", 100.0 * group_spread(r, g, c).second);
  if (!g.pooled.empty() && g.pool_strengths.size() == g.pooled.size()) {
    appendf(out, "\n  %-24s", "pooling strength");
    for (std::size_t k = 0; k < copies.size(); ++k) {
      if (k < g.pooled.size())
        appendf(out, " %14.3g", g.pool_strengths[k]);
      else
        appendf(out, " %14s", "0");
    }
  }
  return out + "\n";
}

}  // namespace

std::string result_table_text(const io::ResultFile& r) {
  std::string out;
  appendf(out, "fit of model '%s' to '%s' set '%s' (%zu rows, target %s)\n", r.model_name.c_str(),
          r.data_file.c_str(), r.set.c_str(), r.rows, r.target.c_str());
  if (!r.model_yaml.empty()) {
    // The expression itself: a searched hypothesis (pmnf-search) is known by nothing else.
    appendf(out, "  %s = %s\n", r.target.c_str(),
            io::parse_model_yaml(r.model_yaml, "model_yaml").expression.c_str());
  }
  if (r.rows_dropped > 0) {
    appendf(out, "  (%zu rows with NaN or inf were dropped before fitting: drop_invalid)\n",
            r.rows_dropped);
  }
  const bool ci = r.has_bootstrap();
  if (r.params.empty())
    appendf(out,
            "  no params: every value of the model is a fixed constant (show --full: its YAML)\n");
  else
    appendf(out, "  %-12s %14s %12s %12s  %-6s%s\n", "param", "value", "lower", "upper", "scale",
            ci ? (" " +
                  std::string(25 - std::min<std::size_t>(
                                       25, (format_g(100.0 * r.ci, 3) + "% interval").size()),
                              ' ') +
                  format_g(100.0 * r.ci, 3) + "% interval")
                     .c_str()
               : "");
  for (const auto& p : r.params) {
    std::string note;
    if (!p.identifiable) {
      note = "  not determined by this data (see warnings)";
    } else if (p.at_bound) {
      note = bound_note(p, r.rows);
    }
    appendf(out, "  %-12s %14.6g %12.4g %12.4g  %-6s", p.name.c_str(), p.value, p.lo, p.hi,
            p.log_scale ? "log" : "linear");
    // An undetermined constant has no interval: its refits only wander where the data do not look.
    if (ci && !p.identifiable) appendf(out, " %25s", "undetermined");
    if (ci && p.identifiable) appendf(out, " %12.6g..%-12.6g", p.ci_lo, p.ci_hi);
    appendf(out, "%s\n", note.c_str());
  }
  if (!r.group_by.empty()) out += group_table_text(r);
  const auto& x = r.metrics;
  appendf(out, "metrics: MAPE %.3g%%  RMSE %.4g %s  R^2 %.6f  GMAE %.3g%%  max rel err %.3g%%\n",
          x.mape, x.rmse, r.unit.c_str(), x.r2, x.gmae, x.max_rel_err);
  // "improved" only when the printed numbers show it.
  const std::string after = format_g(r.cost), before = format_g(r.cost_before_polish);
  const std::string polish = r.polish_improved && after != before
                                 ? "DE " + before + "; the polish improved it"
                                 : "the DE best; LM polish did not lower it";
  appendf(out, "cost %s (%s), %zu generations, %zu evaluations, %.2f s\n", after.c_str(),
          polish.c_str(), r.generations, r.evaluations, r.seconds);
  appendf(out, "stopped: %s (%s)\n", r.stop_reason.c_str(), r.stop_message.c_str());
  std::string linear;
  for (const auto& p : r.params) {
    if (p.linear) linear += (linear.empty() ? "" : ", ") + p.name;
  }
  if (!linear.empty()) {
    appendf(out, "solved by least squares for each candidate (separable): %s\n", linear.c_str());
  }
  if (ci) {
    appendf(out, "bootstrap: %zu of %zu refits on rows resampled by %s; percentile intervals\n",
            r.bootstrap.front().size(), r.bootstrap_requested, r.bootstrap_resampled.c_str());
  }
  if (!r.lambda_split.empty()) {
    appendf(out,
            "lambda auto: %s chose lambda %s; held-out cost per lambda:", r.lambda_split.c_str(),
            format_g(r.lambda).c_str());
    for (std::size_t i = 0; i < r.lambda_grid.size(); ++i) {
      appendf(out, " %s:%s", format_g(r.lambda_grid[i]).c_str(),
              format_g(r.lambda_scores[i]).c_str());
    }
    appendf(out, "\n");
  }
  if (!r.ranges.empty()) {
    appendf(out, "measured range:");
    std::size_t own = 0;
    for (const auto& m : r.ranges) {
      if (!r.group_by.empty() &&
          m.name.find('@') != std::string::npos) {  // a group's own (measured_range.hpp)
        ++own;
        continue;
      }
      appendf(out, " %s %s..%s", m.name.c_str(), format_g(m.lo).c_str(), format_g(m.hi).c_str());
    }
    appendf(out, " (predictions outside are flagged%s)\n",
            own ? ", and beyond each group's own range" : "");
  }
  if (r.choice_dof > 0 && std::isfinite(r.choice_log_sd)) {
    appendf(out, "beyond the measured range: %s%% error one step out (rms ln; %s)",
            format_g(100.0 * r.choice_log_sd, 3).c_str(), r.choice_how.c_str());
    if (std::isfinite(r.choice_growth))
      appendf(out, ", growing as distance^%s", format_g(r.choice_growth, 2).c_str());
    appendf(out, "\n");
  }
  for (const auto& w : r.warnings) appendf(out, "warning: %s\n", w.c_str());
  return out;
}

void print_result_table(const io::ResultFile& r) {
  std::fputs(result_table_text(r).c_str(), stdout);
}

namespace {

// A scalar field's value, for JSON and for the full report.
nlohmann::ordered_json field_json(const io::ResultFile& r, const io::ResultField& f) {
  return std::visit([&](auto member) { return nlohmann::ordered_json(r.*member); }, f.member);
}

}  // namespace

nlohmann::ordered_json result_json(const io::ResultFile& r, const std::string& path) {
  // Every scalar of the result under its attribute name (io::result_fields), then the lists
  // and groups; "data" repeats data_file for scripts written against older outputs.
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& f : io::result_fields()) j[f.key] = field_json(r, f);
  j["data"] = r.data_file;
  j["params"] = nlohmann::ordered_json::object();
  for (const auto& p : r.params) j["params"][p.name] = p.value;
  j["at_bound"] = nlohmann::ordered_json::array();
  j["unidentifiable"] = nlohmann::ordered_json::array();
  j["linear"] = nlohmann::ordered_json::array();  // solved by least squares, not searched
  for (const auto& p : r.params) {
    if (p.linear) j["linear"].push_back(p.name);
    if (p.at_bound) j["at_bound"].push_back(p.name);
    if (!p.identifiable) j["unidentifiable"].push_back(p.name);
  }
  if (const Groups g = groups_of(r); !g.empty()) {
    nlohmann::ordered_json per = nlohmann::ordered_json::object(),
                           shared = nlohmann::ordered_json::object();
    for (const auto& p : r.params) {
      const auto [constant, label] = param_group(g, p.name);
      if (label.empty())
        shared[p.name] = p.value;
      else
        per[constant][label] = p.value;
    }
    nlohmann::ordered_json spread = nlohmann::ordered_json::object();
    for (const auto& [c, values] : per.items()) spread[c] = group_spread(r, g, c).second;
    j["groups"] = {{"by", g.by},
                   {"labels", g.labels},
                   {"per_group", per},
                   {"shared", shared},
                   {"pooled", g.pooled},
                   {"independent", g.per_group},
                   {"pool_strengths", g.pool_strengths},
                   {"pool_how", g.pool_how},
                   {"relative_spread", spread}};
  }
  j["metrics"] = {{"mape", r.metrics.mape},
                  {"rmse", r.metrics.rmse},
                  {"r2", r.metrics.r2},
                  {"gmae", r.metrics.gmae},
                  {"max_rel_err", r.metrics.max_rel_err}};
  if (r.has_bootstrap()) {
    nlohmann::ordered_json iv = nlohmann::ordered_json::object();
    for (const auto& p : r.params) {
      iv[p.name] = p.identifiable ? nlohmann::ordered_json{p.ci_lo, p.ci_hi}
                                  : nlohmann::ordered_json(nullptr);
    }
    j["bootstrap"] = {{"requested", r.bootstrap_requested},
                      {"finished", r.bootstrap.front().size()},
                      {"resampled", r.bootstrap_resampled},
                      {"ci", r.ci},
                      {"intervals", iv}};
  }
  if (!r.lambda_split.empty()) {
    j["lambda_choice"] = {
        {"split", r.lambda_split}, {"lambdas", r.lambda_grid}, {"held_out_cost", r.lambda_scores}};
  }
  j["timing"] = {
      {"evaluate_seconds", r.de_seconds - r.migration_seconds - r.vote_seconds - r.reduce_seconds},
      {"migration_seconds", r.migration_seconds},
      {"vote_seconds", r.vote_seconds},
      {"reduce_seconds", r.reduce_seconds}};
  j["warnings"] = r.warnings;
  j["ranges"] = nlohmann::ordered_json::object();  // empty: written before ranges were kept
  for (const auto& m : r.ranges) j["ranges"][m.name] = {m.lo, m.hi};
  j["result"] = path;
  fit::RunConfig cfg;
  try {
    fit::apply_run_config_yaml(r.config_yaml, path + " config_yaml", cfg);
    j["config"] = nlohmann::ordered_json::parse(fit::run_config_to_json(cfg));
  } catch (const Error&) {
    j["config"] = nullptr;  // written by a perfit whose options differed
  }
  return j;
}

void print_full_report(const io::ResultFile& r) {
  print_result_table(r);
  std::printf("\nevery field of the result (docs/result-format.md):\n");
  for (const auto& f : io::result_fields()) {
    const nlohmann::ordered_json v = field_json(r, f);
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (text.find('\n') != std::string::npos) {  // YAML fields: one indented block
      std::string block = "\n    ";
      for (const char ch : text) block += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
      text = block;
    }
    std::printf("  %-20s %s  (%s)\n", f.key, text.c_str(), f.doc);
  }
  std::printf("  %-20s %zu values (best cost per %s)\n", "history", r.history.size(),
              r.ranks > 1 ? "epoch" : "generation");
}

std::vector<std::string> pressed_bounds(const io::ResultFile& r) {
  std::vector<std::string> out;
  for (const auto& p : r.params) {
    if (pressed_on(p, r.rows)) out.push_back(p.name);
  }
  return out;
}

}  // namespace perfit::job
