#include "perfit/job/result_names.hpp"

#include <algorithm>
#include <cstdio>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/run_config.hpp"

namespace perfit::job {

ResultNames::ResultNames(const io::ResultFile& r, const std::string& path) : ranges_(r.ranges) {
  if (r.config_yaml.empty()) return;  // written by hand or by an old perfit: names as stored
  fit::RunConfig cfg;
  fit::apply_run_config_yaml(r.config_yaml, "'" + path + "' config_yaml", cfg);
  bindings_ = model::parse_factor_bindings(cfg.factors);
}

std::string ResultNames::column(const std::string& name) const {
  return model::column_of(bindings_, name);
}

const model::FactorBinding* ResultNames::fixed(const std::string& name) const {
  for (const auto& b : bindings_) {
    if (b.factor == name && b.column.empty()) return &b;
  }
  return nullptr;
}

data::MeasurementTable ResultNames::bind(const data::MeasurementTable& t, model::ModelSpec& spec,
                                         const std::string& where, std::string* note) const {
  data::MeasurementTable out;
  for (const auto& c : t.columns()) {
    if (fixed(c.name())) {
      // Read from the given column instead of the fit's fixed value: per row, as any factor.
      std::erase_if(spec.constants, [&](const auto& k) { return k.first == c.name(); });
      if (!spec.factors.empty()) spec.factors.push_back(c.name());
    }
    const std::string name = column(c.name());
    if (out.find(name)) {
      std::string also;  // the factor name the column is bound to, if that is how it came
      for (const auto& b : bindings_) {
        if (b.column == name) also = " (the fit bound " + b.factor + " to " + name + ")";
      }
      throw ConfigError(where + ": '" + name + "' is given twice" + also);
    }
    out.add_column(c.with_name(name));
  }
  std::vector<std::string> held;
  for (const auto& f : model::Model::factors(spec)) {
    const auto m = std::find_if(ranges_.begin(), ranges_.end(),
                                [&](const io::MeasuredRange& x) { return x.name == f; });
    if (out.find(f) || m == ranges_.end() || m->lo != m->hi || out.columns().empty()) continue;
    out.add_column(data::Column(f, std::vector<double>(out.rows(), m->lo)));
    held.push_back(f + "=" + format_g(m->lo, 10));
  }
  if (!held.empty()) {
    const std::string line =
        where + ": " + join(held) + " not given: held at the one value the fit measured";
    if (note) {
      *note = line;
    } else {
      std::fprintf(stderr, "perfit: note: %s\n", line.c_str());
    }
  }
  return out;
}

}  // namespace perfit::job
