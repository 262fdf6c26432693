// CLI11 flags derived from an option table: one --flag (or positional argument) per option,
// booleans get --x and --no-x, help text from the option's doc, accepted values and default.
// apply() sets the options that were given, checked by the same parser as the config file's
// keys, so a command's options are declared once, in its table.
#pragma once

#include <CLI/CLI.hpp>
#include <deque>
#include <string>
#include <vector>

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
      Given& g = given_.emplace_back(Given{&o, {}});
      // A switch says only when it is on by default; other options what they accept.
      const std::string def = o.required ? std::string() : o.format(defaults);
      const bool on_off = o.kind == OptionKind::boolean;
      const std::string help =
          o.doc + (on_off ? std::string() : " (" + o.expected + ")") +
          (on_off ? (def == "true" ? " [on; --no-" + o.flag + " turns it off]" : std::string())
                  : (def.empty() ? std::string() : " [" + def + "]"));
      CLI::Option* flag = nullptr;
      if (o.kind == OptionKind::boolean) {
        // Two flags, not CLI11's "--x,!--no-x", whose help reads "--x,--no-x{false}".
        // trigger_on_parse: the later of the two on the command line wins.
        flag = cmd->add_flag_callback(
                      "--" + o.flag, [&g] { g.texts = {"true"}; }, help)
                   ->trigger_on_parse();
        CLI::Option* off =
            cmd->add_flag_callback(
                   "--no-" + o.flag, [&g] { g.texts = {"false"}; }, "the opposite of --" + o.flag)
                ->trigger_on_parse();
        if (!o.positional) off->group(o.test_hook ? std::string() : section_title(o.key));
      } else if (o.repeatable) {
        flag = cmd->add_option_function<std::vector<std::string>>(
            name_of(o),
            [&g](const std::vector<std::string>& v) {
              g.texts.insert(g.texts.end(), v.begin(), v.end());
            },
            help);
      } else {
        flag =
            cmd->add_option_function<std::string>(
                   name_of(o), [&g](const std::string& v) { g.texts = {v}; }, help)
                ->allow_extra_args(false)
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later flag overrides
      }
      if (o.kind != OptionKind::boolean) {
        flag->type_name(o.kind == OptionKind::number ? "NUMBER"
                        : o.kind == OptionKind::rows ? "ROWS"
                                                     : "TEXT");
      }
      if (o.required) flag->required();
      if (!o.positional)
        flag->group(o.test_hook ? std::string() : section_title(o.key));  // "": not in --help
    }
  }

  // Throws: ConfigError "--flag: found 'x', expected ...".
  void apply(S& s) const {
    for (const auto& g : given_) {
      for (const auto& text : g.texts) {
        try {
          g.option->parse(s, text);
        } catch (const ConfigError& e) {
          throw ConfigError((g.option->positional ? g.option->flag : "--" + g.option->flag) + ": " +
                            e.what());
        }
      }
    }
  }

 private:
  struct Given {
    const Option<S>* option;
    std::vector<std::string> texts;  // as given, in order; empty: not given
  };
  static std::string name_of(const Option<S>& o) { return o.positional ? o.flag : "--" + o.flag; }
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
