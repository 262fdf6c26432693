#include "perfit/model/grouped_model.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/model/expression.hpp"

namespace perfit::model {

namespace {

constexpr std::string_view kIndicator = "_group";
constexpr std::string_view kSeparator = "__";

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Replaces every identifier of `text` named in `per_group` by its sum over the groups, at the
// offsets the parser recorded (from the back, so that earlier offsets stay valid).
std::string rewrite(const std::string& text, const std::string& what, std::size_t n_groups,
                    const std::vector<std::string>& per_group) {
  std::vector<std::pair<std::size_t, std::string>> at;
  const std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
    if (e->kind == Expr::Kind::ident && contains(per_group, e->name))
      at.emplace_back(e->pos, e->name);
    for (const auto& a : e->args) walk(a);
  };
  walk(parse_expression(text, what));
  std::sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = text;
  for (const auto& [pos, name] : at) {
    std::string sum = "(";
    for (std::size_t g = 1; g <= n_groups; ++g) {
      sum += (g > 1 ? " + " : "") + group_indicator(g) + "*" + group_param(name, g);
    }
    out.replace(pos, name.size(), sum + ")");
  }
  return out;
}

}  // namespace

std::string group_indicator(std::size_t g) { return std::string(kIndicator) + std::to_string(g); }

std::string group_param(const std::string& constant, std::size_t g) {
  return constant + std::string(kSeparator) + std::to_string(g);
}

std::pair<std::string, std::size_t> split_group_param(const std::string& name) {
  const std::size_t at = name.rfind(kSeparator);
  if (at == std::string::npos || at == 0 || at + kSeparator.size() >= name.size()) return {name, 0};
  const std::string digits = name.substr(at + kSeparator.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {name, 0};
  return {name.substr(0, at), static_cast<std::size_t>(std::stoul(digits))};
}

bool is_group_indicator(const std::string& column) {
  return column.size() > kIndicator.size() &&
         column.compare(0, kIndicator.size(), kIndicator) == 0 &&
         std::all_of(column.begin() + static_cast<std::ptrdiff_t>(kIndicator.size()), column.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

ConstantKinds constant_kinds(const ModelSpec& spec, const std::vector<std::string>& shared,
                             const std::vector<std::string>& per_group,
                             const std::vector<std::string>& pooled) {
  std::vector<std::string> names;
  for (const auto& p : spec.params) names.push_back(p.name);
  const std::vector<std::pair<const char*, const std::vector<std::string>*>> lists = {
      {"--shared", &shared}, {"--per-group", &per_group}, {"--pooled", &pooled}};
  for (std::size_t a = 0; a < lists.size(); ++a) {
    for (const auto& n : *lists[a].second) {
      if (!contains(names, n)) {
        throw ConfigError("'" + n + "' (in " + lists[a].first + ") is not a constant of model '" +
                          spec.name + "'; its constants: " + join(names));
      }
      for (std::size_t b = a + 1; b < lists.size(); ++b) {
        if (contains(*lists[b].second, n)) {
          throw ConfigError("constant '" + n + "' is named both " + lists[a].first + " and " +
                            lists[b].first + "; name it in one");
        }
      }
    }
  }
  ConstantKinds k;
  for (const auto& n : names) {
    (contains(shared, n) ? k.shared : contains(per_group, n) ? k.per_group : k.pooled).push_back(n);
  }
  return k;
}

ModelSpec expand_for_groups(const ModelSpec& spec, std::size_t n_groups,
                            const std::vector<std::string>& per_group_only,
                            const std::vector<PoolStrength>& pooled) {
  std::vector<std::string> per_group = per_group_only;  // every constant with a copy per group
  for (const auto& p : pooled) per_group.push_back(p.constant);
  std::set<std::string> taken;
  for (const auto& p : spec.params) taken.insert(p.name);
  for (const auto& c : spec.constants) taken.insert(c.first);
  for (const auto& t : spec.terms) taken.insert(t.name);
  for (const auto& f : Model::factors(spec)) taken.insert(f);
  ModelSpec out = spec;
  out.params.clear();
  for (const auto& p : spec.params) {
    if (!contains(per_group, p.name)) {
      out.params.push_back(p);
      continue;
    }
    for (std::size_t g = 1; g <= n_groups; ++g) {
      ParamSpec q = p;
      q.name = group_param(p.name, g);
      if (taken.count(q.name)) {
        throw ConfigError("model '" + spec.name + "' already has a name '" + q.name +
                          "', which the joint fit " + "needs for group " + std::to_string(g) +
                          "'s '" + p.name + "'; rename it");
      }
      out.params.push_back(q);
    }
  }
  for (std::size_t g = 1; g <= n_groups; ++g) {
    if (taken.count(group_indicator(g))) {
      throw ConfigError("model '" + spec.name + "' reads a column '" + group_indicator(g) +
                        "', a name the joint fit keeps for its groups; rename the column");
    }
  }
  for (const auto& p : pooled) {
    PoolSpec pool{p.constant, {}, p.strength, p.scale};
    for (std::size_t g = 1; g <= n_groups; ++g) pool.params.push_back(group_param(p.constant, g));
    out.pools.push_back(std::move(pool));
  }
  out.expression = rewrite(spec.expression, "expression", n_groups, per_group);
  for (auto& t : out.terms)
    t.expression = rewrite(t.expression, "term '" + t.name + "'", n_groups, per_group);
  if (!out.factors.empty() && !per_group.empty()) {
    for (std::size_t g = 1; g <= n_groups; ++g) out.factors.push_back(group_indicator(g));
  }
  std::vector<std::string> pooled_names;
  for (const auto& p : pooled) pooled_names.push_back(p.constant);
  out.description += (out.description.empty() ? "" : " ") + std::string("(fitted jointly over ") +
                     std::to_string(n_groups) + " groups; per group: " + join(per_group_only) +
                     "; pooled: " + join(pooled_names) + ")";
  return out;
}

}  // namespace perfit::model
