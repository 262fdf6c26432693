// The YAML texts of configs/models/, compiled in (generated builtin_models.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace perfit::io::detail {
// (file name, YAML text), generic first.
const std::vector<std::pair<std::string, std::string>>& builtin_model_sources();
}  // namespace perfit::io::detail
