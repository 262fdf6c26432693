// CLI11 flags derived from an option table: one --flag per option (booleans get --x and
// --no-x), help text from the option's doc, accepted values and default. apply() sets the
// options that were given, checked by the same parser as the config file's keys.
#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <string>

#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"

namespace perfit::app {

template <class S>
class OptionFlags {
 public:
  // Registers every option with a flag; `defaults` gives the [default] shown in --help.
  void add(CLI::App* cmd, const OptionTable<S>& table, const S& defaults) {
    for (const auto& o : table) {
      if (o.flag.empty()) continue;
      Given& g = given_.emplace_back(Given{&o, {}, false});
      const std::string def = o.format(defaults);
      const std::string help = o.doc + " (" + o.expected + ")" +
                               (def.empty() ? std::string() : " [" + def + "]");
      const std::string group = section_title(o.key);
      if (o.kind == OptionKind::boolean) {
        cmd->add_flag_function("--" + o.flag + ",!--no-" + o.flag,
                               [&g](std::int64_t n) {
                                 g.text = n > 0 ? "true" : "false";
                                 g.set = true;
                               },
                               help)
            ->group(group);
      } else {
        cmd->add_option_function<std::string>("--" + o.flag,
                                              [&g](const std::string& v) {
                                                g.text = v;
                                                g.set = true;
                                              },
                                              help)
            ->group(group)
            ->type_name(o.kind == OptionKind::number ? "NUMBER" : o.kind == OptionKind::rows ? "ROWS" : "TEXT")
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later flag overrides
      }
    }
  }

  // Throws: ConfigError "--flag: found 'x', expected ...".
  void apply(S& s) const {
    for (const auto& g : given_) {
      if (!g.set) continue;
      try {
        g.option->parse(s, g.text);
      } catch (const ConfigError& e) {
        throw ConfigError("--" + g.option->flag + ": " + e.what());
      }
    }
  }

  bool given(const std::string& key) const {
    for (const auto& g : given_) {
      if (g.option->key == key) return g.set;
    }
    return false;
  }

 private:
  struct Given {
    const Option<S>* option;
    std::string text;
    bool set;
  };
  static std::string section_title(const std::string& key) {
    const auto dot = key.find('.');
    if (dot == std::string::npos) return "Options";
    const std::string s = key.substr(0, dot);
    if (s == "de") return "Differential evolution (config section de:)";
    if (s == "cost") return "Cost (config section cost:)";
    if (s == "islands") return "Islands, under mpiexec (config section islands:)";
    return s;
  }
  std::deque<Given> given_;  // stable addresses for the callbacks
};

}  // namespace perfit::app
