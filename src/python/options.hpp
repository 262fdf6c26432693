// Options from Python keyword arguments, by the CLI's option tables: a name is an option's key
// ("de.seed") or its flag with '_' for '-' ("seed", "max_generations").
#pragma once

#include <string>

#include "perfit/fit/run_config.hpp"
#include "perfit/select/select_set.hpp"

namespace perfit::python {

// Throws: ConfigError "<who>: unknown option 'x'; did you mean 'y'?" or "<who> option 'x':
// found ..., expected ...".
void apply_run_option(fit::RunConfig& cfg, const std::string& name, const std::string& value,
                      const std::string& who);

// A selection's own option (models, criterion, folds, holdout, negative_exponents); false when
// `name` is none of them. Throws: ConfigError for a bad value.
bool apply_choice_option(select::SelectArgs& a, const std::string& name, const std::string& value);

}  // namespace perfit::python
