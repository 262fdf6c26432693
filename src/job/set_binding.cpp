#include "perfit/job/set_binding.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::job {

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& columns) {
  const std::string near = closest_match(word, columns);
  return near.empty() ? std::string() : "did you mean '" + near + "'? ";
}

}  // namespace

BoundSpec bind_to_set(const model::ModelSpec& spec, const std::string& factors,
                      const io::SetInfo& info, const std::string& set) {
  const auto t = info.attributes.find("target");
  const std::string target = t == info.attributes.end() ? "" : data::attribute_text(t->second);
  std::vector<std::string> names,
      numeric;  // numeric: the columns a factor can read (not the target)
  for (const auto& c : info.columns) {
    names.push_back(c.name);
    if (c.type != data::ColumnType::string && c.name != target) numeric.push_back(c.name);
  }
  const auto all = model::parse_factor_bindings(factors);
  for (const auto& b : all) {
    if (b.column.empty() || b.column != target) continue;
    throw ConfigError("--factors " + b.factor + "=" + b.column + ": '" + b.column +
                      "' is the measured time of " + set +
                      " (its target), which no factor can read; numeric columns: " + join(numeric));
  }
  BoundSpec out{model::bind_factors(spec, model::bindings_for(spec, all)), {}};
  const std::vector<std::string> reads = model::Model::factors(spec);
  for (const auto& b : all) {
    if (!has(reads, b.factor)) out.unused.push_back(b);
  }
  for (const auto& b : all) {
    if (b.column.empty() || !has(reads, b.factor) || has(numeric, b.column)) continue;
    throw ConfigError(
        "--factors " + b.factor + "=" + b.column + ": " + set +
        (has(names, b.column)
             ? " column '" + b.column + "' holds text, a factor must be numeric; "
             : " has no column '" + b.column + "'; " + did_you_mean(b.column, numeric)) +
        "numeric columns: " + join(numeric));
  }
  for (const auto& f : model::Model::factors(out.spec)) {
    if (f == target) {
      throw ConfigError("model '" + spec.name + "' reads factor '" + f +
                        "', which is the measured time of " + set +
                        " (its target); bind it with --factors " + f + "=<column> or " + f +
                        "=<number> (numeric columns: " + join(numeric) + ")");
    }
    if (has(names, f)) continue;  // a text column read as a factor: the evaluator names it
    throw ConfigError("model '" + spec.name + "' reads factor '" + f +
                      "', which is not a column of " + set + "; " + did_you_mean(f, numeric) +
                      "bind it with --factors " + f + "=<column> or " + f +
                      "=<number> (numeric columns: " + join(numeric) + ")");
  }
  return out;
}

void note_unused(const BoundSpec& b) {
  if (b.unused.empty()) return;
  std::vector<std::string> names;
  for (const auto& u : b.unused) names.push_back(u.factor);
  spdlog::info("--factors binds {}, which model '{}' does not read: left out for it", join(names),
               b.spec.name);
}

}  // namespace perfit::job
