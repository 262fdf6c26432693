// Option files as YAML: a map nested by section read as (dotted key, text) pairs, and option
// values written back as YAML or JSON. Which keys exist and what they accept is the caller's
// option table (fit/run_config.hpp); this file only maps YAML nesting to dotted keys and back.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "perfit/core/option_table.hpp"

namespace perfit::io {

using KeyTexts = std::vector<std::pair<std::string, std::string>>;

// The YAML map's leaves as (dotted key, text) in file order; a sequence becomes the rows text
// form ("a,b;c", "k=v;k=v"). `where` names the source in errors ("config 'c.yaml'").
// Throws: ConfigError naming where and the YAML line.
KeyTexts read_options_yaml(const std::string& text, const std::string& where);

// The values as YAML that read_options_yaml reads back to the same texts (full precision).
std::string options_to_yaml(const std::vector<OptionValue>& values);
// The same values as a JSON object nested by section, with typed scalars.
std::string options_to_json(const std::vector<OptionValue>& values);

}  // namespace perfit::io
