#include "perfit/job/fit_result.hpp"

#include "perfit/core/text.hpp"
#include "perfit/core/utc_time.hpp"
#include "perfit/core/version.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/job/fitted_rows.hpp"
#include "perfit/job/result_report.hpp"

namespace perfit::job {

namespace {

void add_params(io::ResultFile& r, const model::ModelSpec& spec, const fit::FitReport& fr) {
  const auto& ident = fr.identifiability;
  for (std::size_t k = 0; k < spec.params.size(); ++k) {
    const auto& p = spec.params[k];
    r.params.push_back({p.name, fr.params(static_cast<Eigen::Index>(k)), p.lo, p.hi, p.log_scale,
                        static_cast<bool>(fr.at_bound[k]),
                        ident.identifiable.empty() || ident.identifiable[k], fr.linear[k]});
    if (k < fr.past_bound.size()) r.params.back().past_bound = fr.past_bound[k];
  }
  r.warnings = ident.warnings;
  if (const std::vector<std::string> pressed = pressed_bounds(r); !pressed.empty()) {
    r.warnings.push_back(
        join(pressed) + (pressed.size() > 1 ? " sit" : " sits") +
        " at a bound the data press on: the model cannot follow the data there, and beyond the "
        "measured range its predictions may miss by more than their intervals say; widen the "
        "bounds "
        "and refit, or compare models with perfit select");
  }
}

// How the search went: cost, stop, timing, metrics, noise, history, and lambda (`configured`,
// or the one lambda: auto chose).
void add_search(io::ResultFile& r, const fit::FitReport& fr, double configured) {
  static_cast<model::FitSummary&>(r) = fr;
  r.stop_reason = de::to_string(fr.reason);
  r.stop_message = fr.message;
  r.lambda = fr.lambda.split.empty() ? configured : fr.lambda.lambda;
  r.lambda_split = fr.lambda.split;
  r.lambda_grid = fr.lambda.lambdas;
  r.lambda_scores = fr.lambda.scores;
}

// The fit's forward check (fit/held_out.hpp): the extrapolation part of its intervals, and a
// warning when it misses far more than the residuals inside the range: the shape, not the noise
// (generic on docs/python.md's runs: 11% against 2% with their log2(gpus) term, 1.4% against 2%
// without it).
void add_forward_check(io::ResultFile& r, const fit::ChoiceSpread& f) {
  r.choice_how = f.how;  // or why there is none
  if (f.dof == 0) return;
  r.choice_log_sd = f.log_sd;
  r.choice_dof = f.dof;
  r.choice_step_log = f.step_log;
  r.choice_growth = f.growth;
  if (r.choice_log_sd > 0.05 && r.choice_log_sd > 3.0 * r.noise_log_sd) {
    r.warnings.push_back("refitted without its largest scales, the model misses them by " +
                         format_g(100.0 * f.log_sd, 2) + "% (rms ln) against " +
                         format_g(100.0 * r.noise_log_sd, 2) +
                         "% inside the measured range: it may not follow the data's shape beyond "
                         "it (intervals there "
                         "hold that error); compare models with perfit select");
  }
}

void add_bootstrap(io::ResultFile& r, const fit::BootstrapResult& bs) {
  if (bs.requested == 0) return;
  r.bootstrap_requested = bs.requested;
  r.bootstrap_resampled = bs.resampled;
  r.ci = bs.ci;
  for (Eigen::Index k = 0; k < bs.replicates.cols(); ++k) {
    r.bootstrap.emplace_back(bs.replicates.col(k).begin(), bs.replicates.col(k).end());
    r.params[static_cast<std::size_t>(k)].ci_lo = bs.lo(k);
    r.params[static_cast<std::size_t>(k)].ci_hi = bs.hi(k);
  }
}

}  // namespace

io::ResultFile make_result(const FitRun& s, const fit::FitReport& fr) {
  const fit::RunConfig& c = s.cfg;
  io::ResultFile r;
  r.model_name = s.spec.name;
  r.model_yaml = io::model_to_yaml(s.spec);
  r.config_yaml = fit::run_config_to_yaml(c);
  r.data_file = c.data;
  r.data_file_from_result = data_from_result(c.data, c.out);
  r.set = c.set;
  r.data_checksum = s.checksum;
  r.ranks = s.ranks;
  r.target = s.target;
  r.unit = s.unit;
  r.rows = s.rows;
  r.rows_dropped = s.dropped;
  r.seed = c.de.seed;
  if (!s.groups.empty()) set_groups(r, s.groups);
  add_params(r, s.spec, fr);
  if (!s.groups.empty()) r.warnings = group_warnings(s.groups, r.warnings, r.params);
  add_search(r, fr, c.cost.lambda);
  add_bootstrap(r, fr.bootstrap);
  fit::ChoiceSpread forward = fr.forward;
  if (!c.forward_check)
    forward.how = "no forward check (turned off: forward_check false)";
  else if (!s.groups.empty())
    forward.how = "no forward check: a joint fit's groups have scales of their own";
  add_forward_check(r, forward);
  r.perfit_version = version();
  r.git_revision = git_revision();
  r.created_utc = utc_now();
  return r;
}

}  // namespace perfit::job
