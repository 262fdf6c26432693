#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/model/model.hpp"

namespace perfit::app {

namespace {

struct ModelsArgs {
  std::vector<std::string> names;
  std::string data, set;
  bool json = false;
};

void print_model(const model::ModelSpec& m) {
  std::printf("%s  (%s)\n  %s\n  expression: %s\n", m.name.c_str(), m.origin.c_str(),
              m.description.c_str(), m.expression.c_str());
  for (const auto& t : m.terms)
    std::printf("    %-18s = %s\n", t.name.c_str(), t.expression.c_str());
  for (const auto& [n, v] : m.constants) std::printf("    constant %-9s = %g\n", n.c_str(), v);
  std::printf("  factors (columns it reads): %s\n", join(model::Model::factors(m)).c_str());
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
  if (a.data.empty() != a.set.empty()) throw ConfigError("--data and --set go together");
  if (!a.data.empty()) {
    // Binding to the set's columns finds names that are neither a column nor declared.
    io::StoreReader store(a.data);
    std::vector<std::string> columns;
    for (const auto& c : store.info(a.set).columns) columns.push_back(c.name);
    for (const auto& m : models) {
      const model::Model bound(m, columns);
      (void)bound;
    }
  }
  if (!a.json) {
    for (const auto& m : models) print_model(m);
    return 0;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& m : models) {
    nlohmann::ordered_json j = {{"name", m.name},
                                {"origin", m.origin},
                                {"description", m.description},
                                {"expression", m.expression}};
    j["terms"] = nlohmann::ordered_json::object();
    for (const auto& t : m.terms) j["terms"][t.name] = t.expression;
    j["constants"] = nlohmann::ordered_json::object();
    for (const auto& [n, v] : m.constants) j["constants"][n] = v;
    j["factors"] = model::Model::factors(m);
    j["params"] = nlohmann::ordered_json::array();
    for (const auto& p : m.params) {
      j["params"].push_back({{"name", p.name},
                             {"lo", p.lo},
                             {"hi", p.hi},
                             {"scale", p.log_scale ? "log" : "linear"}});
    }
    out.push_back(j);
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

const OptionTable<ModelsArgs>& models_options() {
  using A = ModelsArgs;
  static const OptionTable<A> t = {
      positional(list_option<A>("model", &A::names, "names or YAML files",
                                "model names or YAML files (default: all built-in)")),
      text_option<A>("data", &A::data, "an HDF5 store",
                     "with --set: check the models against this store's set"),
      text_option<A>("set", &A::set, "a set path", "set whose columns the models must read"),
      json_option<A>(&A::json, "a JSON array"),
  };
  return t;
}

}  // namespace

void add_models_command(CLI::App& app, Action& action) {
  add_command(app, action, "models",
              "List the built-in performance models (configs/models/), or show given models\n"
              "(built-in names or YAML files), with their terms, constants, param bounds and the\n"
              "factors they read. Each file is checked: syntax, bounds, unused params or terms,\n"
              "terms that refer to themselves; with --data/--set also unknown names.",
              std::make_shared<ModelsArgs>(), models_options(), run_models);
}

}  // namespace perfit::app
