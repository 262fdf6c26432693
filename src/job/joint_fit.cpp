#include "perfit/job/joint_fit.hpp"

#include <algorithm>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/job/pool_strength.hpp"

namespace perfit::job {

JointFit plan_joint_fit(
    const fit::RunConfig& cfg, model::ModelSpec& spec, std::vector<std::string>& columns,
    const std::function<data::MeasurementTable(const std::vector<std::string>&)>& read_keys,
    const std::string& where) {
  const std::vector<std::string> by = split_list(cfg.by);
  for (const auto& col : by) {
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) {
      throw ConfigError(where + " has no column '" + col +
                        "' to split the rows into groups (--by); its columns: " + join(columns));
    }
  }
  JointFit j;
  j.groups = find_groups(read_keys(by), by, where);
  j.kinds = model::constant_kinds(spec, split_list(cfg.shared), split_list(cfg.per_group),
                                  split_list(cfg.pooled));
  j.groups.per_group = j.kinds.per_group;
  j.groups.pooled = j.kinds.pooled;
  j.base = spec;
  // The strengths are chosen once the rows are read; the search space is this one already.
  std::vector<model::PoolStrength> pooled;
  for (const auto& name : j.kinds.pooled) pooled.push_back({name, 0.0, 1.0});
  spec = model::expand_for_groups(j.base, j.groups.labels.size(), j.kinds.per_group, pooled);
  for (std::size_t g = 1; g <= j.groups.labels.size(); ++g)
    columns.push_back(model::group_indicator(g));
  return j;
}

model::ModelSpec choose_pools(JointFit& j, const fit::RunConfig& cfg,
                              const fit::FitProblem& problem, const island::IslandLayout& layout) {
  const PoolChoice choice = choose_pool_strength(j.base, j.groups.labels.size(), j.kinds, problem,
                                                 cfg.pool_strength, cfg.search(), layout);
  j.groups.pool_strengths.clear();
  for (const auto& p : choice.pooled) j.groups.pool_strengths.push_back(p.strength);
  j.groups.pool_how = choice.how;
  j.alone = choice.alone;
  return model::expand_for_groups(j.base, j.groups.labels.size(), j.kinds.per_group, choice.pooled);
}

std::function<void(fit::FitProblem&)> fold_recipe(const JointFit& joint,
                                                  const fit::RunConfig& cfg) {
  return [joint, cfg](fit::FitProblem& p) {
    JointFit j = joint;
    p.model = std::make_shared<const model::Model>(choose_pools(j, cfg, p, island::serial_layout()),
                                                   p.rows->column_names());
    p.start = joint_start(*p.model, j.alone);
  };
}

}  // namespace perfit::job
