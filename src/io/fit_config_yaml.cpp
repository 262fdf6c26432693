#include "perfit/io/fit_config_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

using Setter = std::function<void(const YAML::Node&, de::FitConfig&)>;

template <class T>
T as(const YAML::Node& n, const std::string& key, const char* expected) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw ConfigError("key '" + key + "': found '" + (n.IsScalar() ? n.Scalar() : std::string("a list or map")) +
                      "', expected " + expected);
  }
}

double as_number(const YAML::Node& n, const std::string& key) {
  if (n.IsScalar()) {
    const std::string s = n.Scalar();
    if (s == "-inf" || s == "-.inf") return -INFINITY;
    if (s == "inf" || s == ".inf") return INFINITY;
  }
  return as<double>(n, key, "a number");
}

std::size_t as_count(const YAML::Node& n, const std::string& key) {
  const double v = as_number(n, key);
  if (!(v >= 0) || v != std::floor(v)) {
    throw ConfigError("key '" + key + "': found '" + n.Scalar() + "', expected a whole number >= 0");
  }
  return static_cast<std::size_t>(v);
}

const std::map<std::string, Setter>& top_keys() {
  static const std::map<std::string, Setter> k = {
      {"data", [](const YAML::Node& n, de::FitConfig& c) { c.data = as<std::string>(n, "data", "a path"); }},
      {"set", [](const YAML::Node& n, de::FitConfig& c) { c.set = as<std::string>(n, "set", "a set path"); }},
      {"model", [](const YAML::Node& n, de::FitConfig& c) { c.model = as<std::string>(n, "model", "a model name or file"); }},
      {"out", [](const YAML::Node& n, de::FitConfig& c) { c.out = as<std::string>(n, "out", "a path"); }},
      {"seed", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.seed = as<std::uint64_t>(n, "seed", "a whole number >= 0"); }},
      {"threads", [](const YAML::Node& n, de::FitConfig& c) { c.threads = static_cast<unsigned>(as_count(n, "threads")); }},
      {"progress_every", [](const YAML::Node& n, de::FitConfig& c) { c.fit.progress_every = as_count(n, "progress_every"); }},
      {"polish", [](const YAML::Node& n, de::FitConfig& c) { c.fit.polish = as<bool>(n, "polish", "true or false"); }},
  };
  return k;
}

const std::map<std::string, Setter>& cost_keys() {
  static const std::map<std::string, Setter> k = {
      {"residual", [](const YAML::Node& n, de::FitConfig& c) { c.cost.residual = model::parse_residual(as<std::string>(n, "cost.residual", "a name")); }},
      {"weight_column", [](const YAML::Node& n, de::FitConfig& c) { c.cost.weight_column = as<std::string>(n, "cost.weight_column", "a column name"); }},
      {"penalty", [](const YAML::Node& n, de::FitConfig& c) { c.cost.penalty = model::parse_penalty(as<std::string>(n, "cost.penalty", "none, l1 or l2")); }},
      {"lambda", [](const YAML::Node& n, de::FitConfig& c) { c.cost.lambda = as_number(n, "cost.lambda"); }},
  };
  return k;
}

const std::map<std::string, Setter>& de_keys() {
  static const std::map<std::string, Setter> k = {
      {"strategy", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.strategy = de::parse_strategy(as<std::string>(n, "de.strategy", "a name")); }},
      {"population", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.population = as_count(n, "de.population"); }},
      {"F", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.F = as_number(n, "de.F"); }},
      {"F_max", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.F_max = as_number(n, "de.F_max"); }},
      {"CR", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.CR = as_number(n, "de.CR"); }},
      {"p_best", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.p_best = as_number(n, "de.p_best"); }},
      {"archive_rate", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.archive_rate = as_number(n, "de.archive_rate"); }},
      {"memory_size", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.memory_size = as_count(n, "de.memory_size"); }},
      {"min_population", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.min_population = as_count(n, "de.min_population"); }},
      {"init", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.init = de::parse_init(as<std::string>(n, "de.init", "uniform, lhs or sobol")); }},
      {"bounds", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.bounds = de::parse_bound_handling(as<std::string>(n, "de.bounds", "a name")); }},
      {"max_generations", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.max_generations = as_count(n, "de.max_generations"); }},
      {"max_evaluations", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.max_evaluations = as_count(n, "de.max_evaluations"); }},
      {"target_cost", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.target_cost = as_number(n, "de.target_cost"); }},
      {"tol", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.tol = as_number(n, "de.tol"); }},
      {"atol", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.atol = as_number(n, "de.atol"); }},
      {"max_seconds", [](const YAML::Node& n, de::FitConfig& c) { c.fit.de.max_seconds = as_number(n, "de.max_seconds"); }},
  };
  return k;
}

std::string names(const std::map<std::string, Setter>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k;
  return s;
}

void apply(const YAML::Node& map, const std::map<std::string, Setter>& keys,
           const std::string& prefix, de::FitConfig& cfg) {
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    if (prefix.empty() && key == "islands") continue;  // handled by apply_islands
    if (prefix.empty() && (key == "cost" || key == "de")) {
      if (!kv.second.IsMap()) throw ConfigError("key '" + key + "' must be a map of options");
      apply(kv.second, key == "cost" ? cost_keys() : de_keys(), key + ".", cfg);
      continue;
    }
    auto it = keys.find(key);
    if (it == keys.end()) {
      throw ConfigError("unknown key '" + prefix + key + "'; allowed here: " + names(keys) +
                        (prefix.empty() ? ", cost, de, islands" : ""));
    }
    it->second(kv.second, cfg);
  }
}

void apply_islands(const YAML::Node& n, const de::FitConfig& cfg, island::IslandOptions& o) {
  if (!n.IsMap()) throw ConfigError("key 'islands' must be a map of options");
  for (const auto& kv : n) {
    const auto key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    const std::string k = "islands." + key;
    if (key == "topology") {
      o.topology.kind = island::parse_topology(as<std::string>(v, k, "a topology name"));
    } else if (key == "degree") {
      o.topology.degree = static_cast<int>(as_count(v, k));
    } else if (key == "adjacency") {
      if (!v.IsSequence()) throw ConfigError("key '" + k + "' must be a list of lists of island indices");
      o.topology.adjacency.clear();
      for (const auto& row : v) {
        std::vector<int> targets;
        for (const auto& t : row) targets.push_back(static_cast<int>(as_count(t, k)));
        o.topology.adjacency.push_back(targets);
      }
    } else if (key == "interval") {
      o.interval = as_count(v, k);
    } else if (key == "migrants") {
      o.migrants = as_count(v, k);
    } else if (key == "emigrants") {
      o.emigrants = island::parse_emigrant_policy(as<std::string>(v, k, "best, random or tournament"));
    } else if (key == "replace") {
      o.replace = island::parse_replace_policy(as<std::string>(v, k, "worst, random or fair"));
    } else if (key == "mode") {
      const auto m = as<std::string>(v, k, "sync or async");
      if (m != "sync" && m != "async") throw ConfigError("key '" + k + "': found '" + m + "', expected sync or async");
      o.mode = m == "sync" ? island::MigrationMode::sync : island::MigrationMode::async;
    } else if (key == "ranks_per_island") {
      o.ranks_per_island = static_cast<int>(as_count(v, k));
    } else if (key == "slow_island") {
      o.slow_island = as<int>(v, k, "an island index");
    } else if (key == "slow_ms") {
      o.slow_ms = as_number(v, k);
    } else if (key == "per_island") {
      if (!v.IsSequence()) throw ConfigError("key '" + k + "' must be a list of maps of de options");
      o.per_island.clear();
      for (const auto& entry : v) {
        de::FitConfig c = cfg;  // base de options, then this island's overrides
        if (!entry.IsMap()) throw ConfigError("each entry of '" + k + "' must be a map of de options");
        apply(entry, de_keys(), "islands.per_island.", c);
        o.per_island.push_back(c.fit.de);
      }
    } else {
      throw ConfigError("unknown key '" + k + "'; allowed: topology, degree, adjacency, interval, "
                        "migrants, emigrants, replace, mode, ranks_per_island, per_island, "
                        "slow_island, slow_ms");
    }
  }
}

}  // namespace

void apply_fit_config_yaml(const std::string& text, const std::string& origin,
                           de::FitConfig& cfg, island::IslandOptions* islands) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("config '" + origin + "': YAML error at line " +
                      std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap()) throw ConfigError("config '" + origin + "' is not a YAML map of options");
  try {
    apply(root, top_keys(), "", cfg);
    // After the base keys, whatever their order, so per_island starts from the final `de:`.
    if (root["islands"]) {
      if (!islands) throw ConfigError("key 'islands' is not used here");
      apply_islands(root["islands"], cfg, *islands);
    }
  } catch (const ConfigError& e) {
    throw ConfigError("config '" + origin + "': " + e.what());
  }
}

void load_fit_config(const std::string& path, de::FitConfig& cfg, island::IslandOptions* islands) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read config '" + path + "' (missing or no permission)");
  std::stringstream ss;
  ss << in.rdbuf();
  apply_fit_config_yaml(ss.str(), path, cfg, islands);
}

std::string fit_config_to_yaml(const de::FitConfig& c, const island::IslandOptions* islands) {
  YAML::Emitter e;
  const de::DeOptions& d = c.fit.de;
  e << YAML::BeginMap;
  e << YAML::Key << "data" << YAML::Value << c.data << YAML::Key << "set" << YAML::Value << c.set;
  e << YAML::Key << "model" << YAML::Value << c.model << YAML::Key << "out" << YAML::Value << c.out;
  e << YAML::Key << "seed" << YAML::Value << d.seed << YAML::Key << "threads" << YAML::Value << c.threads;
  e << YAML::Key << "progress_every" << YAML::Value << c.fit.progress_every;
  e << YAML::Key << "polish" << YAML::Value << c.fit.polish;
  e << YAML::Key << "cost" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "residual" << YAML::Value << model::to_string(c.cost.residual);
  e << YAML::Key << "weight_column" << YAML::Value << c.cost.weight_column;
  e << YAML::Key << "penalty" << YAML::Value << model::to_string(c.cost.penalty);
  e << YAML::Key << "lambda" << YAML::Value << c.cost.lambda << YAML::EndMap;
  e << YAML::Key << "de" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "strategy" << YAML::Value << de::to_string(d.strategy);
  e << YAML::Key << "population" << YAML::Value << d.population;
  e << YAML::Key << "F" << YAML::Value << d.F << YAML::Key << "F_max" << YAML::Value << d.F_max;
  e << YAML::Key << "CR" << YAML::Value << d.CR << YAML::Key << "p_best" << YAML::Value << d.p_best;
  e << YAML::Key << "archive_rate" << YAML::Value << d.archive_rate;
  e << YAML::Key << "memory_size" << YAML::Value << d.memory_size;
  e << YAML::Key << "min_population" << YAML::Value << d.min_population;
  e << YAML::Key << "init" << YAML::Value << de::to_string(d.init);
  e << YAML::Key << "bounds" << YAML::Value << de::to_string(d.bounds);
  e << YAML::Key << "max_generations" << YAML::Value << d.max_generations;
  e << YAML::Key << "max_evaluations" << YAML::Value << d.max_evaluations;
  e << YAML::Key << "target_cost" << YAML::Value
    << (std::isinf(d.target_cost) ? std::string("-inf") : std::to_string(d.target_cost));
  e << YAML::Key << "tol" << YAML::Value << d.tol << YAML::Key << "atol" << YAML::Value << d.atol;
  e << YAML::Key << "max_seconds" << YAML::Value << d.max_seconds;
  e << YAML::EndMap;
  if (islands) {
    const island::IslandOptions& o = *islands;
    e << YAML::Key << "islands" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "topology" << YAML::Value << island::to_string(o.topology.kind);
    e << YAML::Key << "degree" << YAML::Value << o.topology.degree;
    e << YAML::Key << "interval" << YAML::Value << o.interval;
    e << YAML::Key << "migrants" << YAML::Value << o.migrants;
    e << YAML::Key << "emigrants" << YAML::Value << island::to_string(o.emigrants);
    e << YAML::Key << "replace" << YAML::Value << island::to_string(o.replace);
    e << YAML::Key << "mode" << YAML::Value
      << (o.mode == island::MigrationMode::sync ? "sync" : "async");
    e << YAML::Key << "ranks_per_island" << YAML::Value << o.ranks_per_island;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  return e.c_str();
}

}  // namespace perfit::io
