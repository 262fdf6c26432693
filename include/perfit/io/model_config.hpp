// Performance models as YAML (docs/models.md): the built-in catalogue (configs/models/,
// compiled into the binary) and user files at any path.
#pragma once

#include <string>
#include <vector>

#include "perfit/model/model.hpp"

namespace perfit::io {

// Throws: ConfigError naming origin and the key: YAML syntax, unknown keys, params without
// two bounds, a third bound entry other than 'log', non-numeric values.
model::ModelSpec parse_model_yaml(const std::string& text, const std::string& origin);

// The spec as YAML that parse_model_yaml reads back to the same spec (result files keep it,
// so `perfit predict` needs nothing but the result).
std::string model_to_yaml(const model::ModelSpec& m);

// The built-in models, in catalogue order (generic first).
std::vector<model::ModelSpec> builtin_models();

// A built-in name (e.g. "generic") or the path of a YAML file.
// Throws: ConfigError listing the built-in names when it is neither.
model::ModelSpec load_model(const std::string& name_or_path);

// The model a fit runs: load_model, then the factors it reads bound as `factors` says
// (model/factor_binding.hpp; "" binds none; bindings of factors it does not read are left out,
// so one binding serves several models). Throws: ConfigError as both.
model::ModelSpec load_model(const std::string& name_or_path, const std::string& factors);

}  // namespace perfit::io
