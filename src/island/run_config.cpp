#include "perfit/island/run_config.hpp"

#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::island {

std::vector<de::DeOptions> parse_per_island(const std::string& text, const de::DeOptions& base) {
  std::vector<de::DeOptions> out;
  std::stringstream all(text);
  std::string entry;
  while (std::getline(all, entry, ';')) {
    de::DeOptions d = base;
    const std::string where = "islands.per_island entry " + std::to_string(out.size() + 1);
    std::stringstream items(entry);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item.find_first_not_of(' ') == std::string::npos) continue;
      const auto eq = item.find('=');
      if (eq == std::string::npos) {
        throw ConfigError(where + ": found '" + item + "', expected KEY=VALUE with a de option");
      }
      auto trim = [](std::string s) {
        const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
      };
      const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      const auto* o = find_option(de::de_option_table(), key);
      if (!o) {
        std::string keys;
        for (const auto& k : de::de_option_table()) keys += (keys.empty() ? "" : ", ") + k.key;
        throw ConfigError(where + ": unknown de option '" + key + "'; allowed: " + keys);
      }
      try {
        o->parse(d, value);
      } catch (const ConfigError& e) {
        throw ConfigError(where + " key '" + key + "': " + e.what());
      }
    }
    out.push_back(d);
  }
  return out;
}

void RunConfig::resolve() {
  islands.per_island = per_island.empty() ? std::vector<de::DeOptions>{}
                                          : parse_per_island(per_island, fit.fit.de);
  fit.validate();
}

const OptionTable<RunConfig>& run_config_option_table() {
  using S = RunConfig;
  static const OptionTable<RunConfig> t = [] {
    OptionTable<RunConfig> v;
    add_nested(v, de::fit_config_option_table(), "", [](S& c) -> auto& { return c.fit; });
    add_nested(v, island_option_table(), "islands.", [](S& c) -> auto& { return c.islands; });
    v.push_back({"islands.per_island", "per-island",
                 "islands: heterogeneous DE options, island i takes entry i % n "
                 "(e.g. strategy=jso;strategy=lshade,F=0.7)",
                 "rows of de KEY=VALUE pairs", OptionKind::rows,
                 [](S& c, const std::string& text) {
                   parse_per_island(text, de::DeOptions{});  // checks keys and values now
                   c.per_island = text;
                 },
                 [](const S& c) { return c.per_island; }});
    return v;
  }();
  return t;
}

}  // namespace perfit::island
