#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "perfit/io/model_config.hpp"

namespace perfit::app {

namespace {

struct ModelsArgs {
  std::vector<std::string> names;
  bool json = false;
};

void print_model(const model::ModelSpec& m) {
  std::printf("%s  (%s)\n  %s\n  expression: %s\n", m.name.c_str(), m.origin.c_str(),
              m.description.c_str(), m.expression.c_str());
  for (const auto& t : m.terms) std::printf("    %-18s = %s\n", t.name.c_str(), t.expression.c_str());
  for (const auto& [n, v] : m.constants) std::printf("    constant %-9s = %g\n", n.c_str(), v);
  std::printf("  params:");
  for (const auto& p : m.params) {
    std::printf(" %s[%g, %g%s]", p.name.c_str(), p.lo, p.hi, p.log_scale ? ", log" : "");
  }
  std::printf("\n\n");
}

int run_models(const ModelsArgs& a) {
  std::vector<model::ModelSpec> models;
  if (a.names.empty()) {
    models = io::builtin_models();
  } else {
    for (const auto& n : a.names) models.push_back(io::load_model(n));
  }
  if (!a.json) {
    for (const auto& m : models) print_model(m);
    return 0;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& m : models) {
    nlohmann::ordered_json j = {{"name", m.name}, {"origin", m.origin},
                                {"description", m.description}, {"expression", m.expression}};
    j["terms"] = nlohmann::ordered_json::object();
    for (const auto& t : m.terms) j["terms"][t.name] = t.expression;
    j["constants"] = nlohmann::ordered_json::object();
    for (const auto& [n, v] : m.constants) j["constants"][n] = v;
    j["params"] = nlohmann::ordered_json::array();
    for (const auto& p : m.params) {
      j["params"].push_back({{"name", p.name}, {"lo", p.lo}, {"hi", p.hi},
                             {"scale", p.log_scale ? "log" : "linear"}});
    }
    out.push_back(j);
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace

void add_models_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ModelsArgs>();
  auto* cmd = app.add_subcommand(
      "models", "List the built-in performance models (configs/models/), or show given models\n"
                "(built-in names or YAML files), with their terms, constants and param bounds.");
  cmd->add_option("model", a->names, "model names or YAML files (default: all built-in)");
  cmd->add_flag("--json", a->json, "print a JSON array");
  cmd->callback([a, &action] { action = [a] { return run_models(*a); }; });
}

}  // namespace perfit::app
