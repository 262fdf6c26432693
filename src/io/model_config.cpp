#include "perfit/io/model_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "builtin_models.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::io {

namespace {

double number(const YAML::Node& n, const std::string& where) {
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    throw ConfigError(where + ": expected a number, found '" +
                      (n.IsScalar() ? n.Scalar() : std::string("a list or map")) + "'");
  }
}

model::ParamSpec param(const std::string& name, const YAML::Node& n, const std::string& where) {
  const std::string w = where + " param '" + name + "'";
  model::ParamSpec p;
  p.name = name;
  if (n.IsSequence()) {
    if (n.size() < 2 || n.size() > 3) {
      throw ConfigError(w + " has " + std::to_string(n.size()) +
                        " entries; expected [lo, hi] or [lo, hi, log]");
    }
    p.lo = number(n[0], w + " lower bound");
    p.hi = number(n[1], w + " upper bound");
    if (n.size() == 3) {
      const std::string s = n[2].as<std::string>();
      if (s != "log" && s != "linear") {
        throw ConfigError(w + ": third entry '" + s + "' should be 'log' (or 'linear')");
      }
      p.log_scale = s == "log";
    }
    return p;
  }
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const auto k = kv.first.as<std::string>();
      if (k != "min" && k != "max" && k != "scale") {
        throw ConfigError(w + ": unknown key '" + k + "'; use min, max, scale");
      }
    }
    if (!n["min"] || !n["max"]) throw ConfigError(w + " needs bounds: [lo, hi] or {min:, max:}");
    p.lo = number(n["min"], w + " min");
    p.hi = number(n["max"], w + " max");
    p.log_scale = n["scale"] && n["scale"].as<std::string>() == "log";
    return p;
  }
  throw ConfigError(w + " has no bounds; write '" + name + ": [lo, hi]' or '" + name +
                    ": [lo, hi, log]'");
}

}  // namespace

model::ModelSpec parse_model_yaml(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("model file '" + origin + "': YAML error at line " +
                      std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) throw ConfigError("model file '" + origin + "' is not a YAML map");
  model::ModelSpec m;
  m.origin = origin;
  const std::string where = "model file '" + origin + "'";
  try {
    for (const auto& kv : root) {
      const auto key = kv.first.as<std::string>();
      const YAML::Node& v = kv.second;
      if (key == "name") {
        m.name = v.as<std::string>();
      } else if (key == "description") {
        m.description = v.as<std::string>();
      } else if (key == "expression") {
        m.expression = v.as<std::string>();
      } else if (key == "params") {
        if (!v.IsMap()) throw ConfigError(where + ": 'params' must map names to [lo, hi]");
        for (const auto& p : v)
          m.params.push_back(param(p.first.as<std::string>(), p.second, where));
      } else if (key == "constants") {
        if (!v.IsMap()) throw ConfigError(where + ": 'constants' must map names to numbers");
        for (const auto& c : v) {
          const auto n = c.first.as<std::string>();
          m.constants.emplace_back(n, number(c.second, where + " constant '" + n + "'"));
        }
      } else if (key == "factors") {
        if (!v.IsSequence())
          throw ConfigError(where + ": 'factors' must be a list of column names");
        for (const auto& f : v) m.factors.push_back(f.as<std::string>());
      } else if (key == "terms") {
        if (!v.IsMap()) throw ConfigError(where + ": 'terms' must map names to expressions");
        for (const auto& t : v)
          m.terms.push_back({t.first.as<std::string>(), t.second.as<std::string>()});
      } else {
        throw ConfigError(
            where + ": unknown key '" + key +
            "'; a model has name, description, expression, factors, params, constants, terms");
      }
    }
  } catch (const YAML::Exception& e) {
    throw ConfigError(where + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (m.name.empty()) throw ConfigError(where + " has no 'name'");
  m.validate();
  return m;
}

namespace {

// name .. terms: what a model's text shares with the same model fitted to another set.
std::string emit_head(const model::ModelSpec& m) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << m.name;
  if (!m.description.empty()) e << YAML::Key << "description" << YAML::Value << m.description;
  e << YAML::Key << "expression" << YAML::Value << YAML::DoubleQuoted << m.expression;
  if (!m.factors.empty()) {
    e << YAML::Key << "factors" << YAML::Value << YAML::Flow << m.factors;
  }
  if (!m.terms.empty()) {
    e << YAML::Key << "terms" << YAML::Value << YAML::BeginMap;
    for (const auto& t : m.terms)
      e << YAML::Key << t.name << YAML::Value << YAML::DoubleQuoted << t.expression;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  return e.c_str();
}

// A key yaml-cpp writes as it is (plain): an identifier that no YAML reader takes for null or a
// boolean. Others go through the emitter.
bool plain_key(const std::string& k) {
  static const std::set<std::string> special = {"null", "true", "false", "yes", "no",
                                                "on",   "off",  "y",     "n"};
  std::string lower(k);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return is_identifier(k) && !special.count(lower);
}

// A double as yaml-cpp writes it at precision 17 (an ostream's %.17g, .nan, .inf, -.inf).
void append_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += ".nan";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-.inf" : ".inf";
  } else {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17).ptr;
    out.append(buf, end);
  }
}

// constants and params: the numbers, which differ from set to set. The text of yaml-cpp's
// emitter, written directly where every name is a plain key: its stringstream per number was
// 4% of a selection over 10^4 sets (tests/io/model_config_test.cpp holds the two equal).
std::string emit_numbers_directly(const model::ModelSpec& m) {
  std::string out;
  if (!m.constants.empty()) {
    out += "constants:";
    for (const auto& [n, v] : m.constants) {
      out += "\n  " + n + ": ";
      append_number(out, v);
    }
    out += "\n";
  }
  out += "params:";
  if (m.params.empty()) out += "\n  {}";
  for (const auto& p : m.params) {
    out += "\n  " + p.name + ": [";
    append_number(out, p.lo);
    out += ", ";
    append_number(out, p.hi);
    out += p.log_scale ? ", log]" : "]";
  }
  return out;
}

std::string emit_numbers(const model::ModelSpec& m) {
  const bool plain = std::all_of(m.constants.begin(), m.constants.end(),
                                 [](const auto& c) { return plain_key(c.first); }) &&
                     std::all_of(m.params.begin(), m.params.end(),
                                 [](const auto& p) { return plain_key(p.name); });
  if (plain) return emit_numbers_directly(m);
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  if (!m.constants.empty()) {
    e << YAML::Key << "constants" << YAML::Value << YAML::BeginMap;
    for (const auto& [n, v] : m.constants) e << YAML::Key << n << YAML::Value << v;
    e << YAML::EndMap;
  }
  e << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
  for (const auto& p : m.params) {
    e << YAML::Key << p.name << YAML::Value << YAML::Flow << YAML::BeginSeq << p.lo << p.hi;
    if (p.log_scale) e << "log";
    e << YAML::EndSeq;
  }
  e << YAML::EndMap << YAML::EndMap;
  return e.c_str();
}

}  // namespace

std::string model_to_yaml(const model::ModelSpec& m) {
  // Two block maps joined are one (the text of a single emitter). The head is kept by its
  // content: a selection over 10^4 sets writes every winner's model, a few dozen distinct
  // heads, and yaml-cpp checks each scalar against its regexes (a tenth of that run).
  thread_local std::unordered_map<std::string, std::string> heads;
  if (heads.size() > 4096) heads.clear();
  std::string key = m.name + '\x1f' + m.description + '\x1f' + m.expression;
  for (const auto& f : m.factors) key += '\x1e' + f;
  for (const auto& t : m.terms) key += '\x1d' + t.name + '\x1e' + t.expression;
  auto it = heads.find(key);
  if (it == heads.end()) it = heads.emplace(std::move(key), emit_head(m)).first;
  return it->second + "\n" + emit_numbers(m);
}

std::vector<model::ModelSpec> builtin_models() {
  // Parsed once: a batch loads a model per fit.
  static const std::vector<model::ModelSpec> parsed = [] {
    std::vector<model::ModelSpec> out;
    for (const auto& [file, text] : detail::builtin_model_sources()) {
      out.push_back(parse_model_yaml(text, "built-in " + file));
    }
    return out;
  }();
  return parsed;
}

model::ModelSpec load_model(const std::string& name_or_path) {
  std::string names;
  for (const auto& m : builtin_models()) {
    if (m.name == name_or_path) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) {
    std::ifstream in(name_or_path);
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_model_yaml(ss.str(), name_or_path);
  }
  throw ConfigError("model '" + name_or_path + "' is neither a built-in model (" + names +
                    ") nor a YAML file. See `perfit models`");
}

model::ModelSpec load_model(const std::string& name_or_path, const std::string& factors) {
  const model::ModelSpec spec = load_model(name_or_path);
  return model::bind_factors(spec,
                             model::bindings_for(spec, model::parse_factor_bindings(factors)));
}

}  // namespace perfit::io
