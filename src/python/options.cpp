#include "options.hpp"

#include <vector>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::python {

namespace {

std::string as_flag(std::string name) {
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

template <class S>
const Option<S>* find(const OptionTable<S>& table, const std::string& name) {
  const std::string flag = as_flag(name);
  for (const auto& o : table) {
    if (o.key == name || (!o.flag.empty() && o.flag == flag)) return &o;
  }
  return nullptr;
}

template <class S>
void parse(const Option<S>& o, S& s, const std::string& name, const std::string& value,
           const std::string& who) {
  try {
    o.parse(s, value);
  } catch (const ConfigError& e) {
    throw ConfigError(who + " option '" + name + "': " + e.what());
  }
}

}  // namespace

void apply_run_option(fit::RunConfig& cfg, const std::string& name, const std::string& value,
                      const std::string& who) {
  const auto& table = fit::run_config_option_table();
  if (const auto* o = find(table, name)) return parse(*o, cfg, name, value, who);
  std::vector<std::string> names;
  for (const auto& o : table) names.push_back(o.flag.empty() ? o.key : o.flag);
  const std::string near = closest_match(as_flag(name), names);
  throw ConfigError(who + ": unknown option '" + name + "'" +
                    (near.empty() ? "" : "; did you mean '" + near + "'?") +
                    " (perfit.options() lists them)");
}

bool apply_choice_option(select::SelectArgs& a, const std::string& name, const std::string& value) {
  const auto* o = find(select::select_choice_options(), name);
  if (!o) return false;
  parse(*o, a, name, value, "perfit.select");
  return true;
}

}  // namespace perfit::python
