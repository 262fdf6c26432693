#include "perfit/model/factor_binding.hpp"

#include <algorithm>
#include <cstdlib>

#include "perfit/core/error.hpp"
#include "perfit/core/option_table.hpp"
#include "perfit/core/text.hpp"

namespace perfit::model {

std::vector<FactorBinding> parse_factor_bindings(const std::string& text) {
  std::vector<FactorBinding> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(start, end - start);
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      throw ConfigError("factors '" + text + "': entry '" + entry +
                        "' is not NAME=COLUMN or "
                        "NAME=NUMBER (e.g. p=n_accelerators,d=1)");
    }
    FactorBinding b;
    b.factor = entry.substr(0, eq);
    const std::string rhs = entry.substr(eq + 1);
    char* stop = nullptr;
    const double v = std::strtod(rhs.c_str(), &stop);
    if (stop && *stop == '\0') {
      b.value = v;
    } else {
      b.column = rhs;
    }
    for (const auto& o : out) {
      if (o.factor == b.factor)
        throw ConfigError("factors '" + text + "': factor '" + b.factor + "' is bound twice");
    }
    out.push_back(b);
    start = end + 1;
  }
  return out;
}

std::vector<FactorBinding> bindings_for(const ModelSpec& spec,
                                        const std::vector<FactorBinding>& bindings) {
  const std::vector<std::string> reads = Model::factors(spec);
  std::vector<FactorBinding> out;
  for (const auto& b : bindings) {
    if (std::find(reads.begin(), reads.end(), b.factor) != reads.end()) out.push_back(b);
  }
  return out;
}

std::string column_of(const std::vector<FactorBinding>& bindings, const std::string& name) {
  for (const auto& b : bindings) {
    if (b.factor == name && !b.column.empty()) return b.column;
  }
  return name;
}

std::string to_text(const std::vector<FactorBinding>& bindings) {
  std::string out;
  for (const auto& b : bindings) {
    out += (out.empty() ? "" : ",") + b.factor + "=" +
           (b.column.empty() ? format_real(b.value) : b.column);
  }
  return out;
}

std::string scale_column(const Model& m) {
  const auto& used = m.columns_used();
  if (std::find(used.begin(), used.end(), "p") != used.end()) return "p";
  for (const auto& t : m.spec().terms) {
    if (t.name == "p" && std::find(used.begin(), used.end(), t.expression) != used.end())
      return t.expression;
  }
  return "";
}

ModelSpec bind_factors(ModelSpec spec, const std::vector<FactorBinding>& bindings) {
  if (bindings.empty()) return spec;
  const std::vector<std::string> reads = Model::factors(spec);
  const bool declared = !spec.factors.empty();
  for (const FactorBinding& b : bindings) {
    if (std::find(reads.begin(), reads.end(), b.factor) == reads.end()) {
      throw ConfigError("factors: model '" + spec.name + "' has no factor '" + b.factor +
                        "'; it reads " + join(reads));
    }
    if (b.column == b.factor) continue;
    if (b.column.empty()) {
      spec.constants.emplace_back(b.factor, b.value);
    } else {
      spec.terms.push_back({b.factor, b.column});
    }
    auto& f = spec.factors;
    f.erase(std::remove(f.begin(), f.end(), b.factor), f.end());
    if (declared && !b.column.empty() && std::find(f.begin(), f.end(), b.column) == f.end()) {
      f.push_back(b.column);
    }
  }
  return spec;
}

}  // namespace perfit::model
