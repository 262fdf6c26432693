// The command line of the analysis commands (validate, select): the fits' options as flags
// (job::analysis_option_table), read after --config and agreed on by every rank.
#pragma once

#include <string>

#include "option_flags.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/job/analysis_set.hpp"

namespace perfit::app {

using AnalysisFlags = OptionFlags<fit::RunConfig>;

// --config then the flags, agreed on by every rank of `ranks`. Throws: ConfigError.
inline fit::RunConfig read_analysis_options(const std::string& config, const AnalysisFlags& flags,
                                            const job::Ranks& ranks, bool need_out) {
  fit::RunConfig cfg;
  ranks.agreed([&] {
    if (!config.empty()) fit::load_run_config(config, cfg);
    flags.apply(cfg);
    cfg.validate(need_out);
  });
  return cfg;
}

}  // namespace perfit::app
