#include "perfit/select/joint.hpp"

#include <spdlog/spdlog.h>

#include <optional>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::select {

namespace {

std::string where(const fit::RunConfig& c) { return "'" + c.data + "' set '" + c.set + "'"; }

}  // namespace

JointModel plan_joint(const fit::RunConfig& c, const model::Model& base,
                      const job::AnalysisSet& set) {
  JointModel out;
  model::ModelSpec spec = base.spec();
  std::vector<std::string> names = set.set_columns;
  out.joint = job::plan_joint_fit(
      c, spec, names,
      [&](const std::vector<std::string>& by) {
        data::MeasurementTable keys;
        for (const auto& col : by) keys.add_column(set.rows->column(col));
        return keys;
      },
      where(c));
  out.model = std::make_shared<const model::Model>(spec, names);
  return out;
}

void mark_groups(job::AnalysisSet& set, const job::Groups& g, const fit::RunConfig& c) {
  auto rows = std::make_shared<data::MeasurementTable>(*set.rows);
  job::add_group_columns(*rows, g, where(c));
  set.rows = rows;
}

std::vector<JointKinds> kinds_to_compare(const fit::RunConfig& c,
                                         const std::vector<std::string>& constants) {
  if (!c.shared.empty() || !c.per_group.empty() || !c.pooled.empty())
    return {{"kinds as given", c}};
  JointKinds pooled{"pooled", c}, shared{"shared", c}, per_group{"per group", c};
  shared.cfg.shared = join(constants, "");
  per_group.cfg.per_group = join(constants, "");
  return {pooled, shared, per_group};
}

std::vector<Candidate> joint_candidates(std::vector<Candidate> cands, bool named,
                                        const fit::RunConfig& c, job::AnalysisSet& set) {
  std::vector<Candidate> out;
  std::optional<job::Groups> groups;
  for (const Candidate& m : cands) {
    if (m.procedure()) {
      if (named) {
        throw ConfigError("select --by: '" + m.word +
                          "' is computed per series, not fitted as one model over the "
                          "groups; leave it out of --models");
      }
      continue;
    }
    for (const auto& k : kinds_to_compare(c, m.model->param_names())) {
      JointModel jm;
      try {
        jm = plan_joint(k.cfg, *m.model, set);
      } catch (const ConfigError& e) {
        if (named) throw;
        spdlog::info("select --by: skipping built-in '{}': {}", m.word, e.what());
        break;
      }
      if (!groups) groups = jm.joint.groups;
      Candidate joint = m;
      joint.model = std::move(jm.model);
      joint.kinds = k.label;
      joint.joint = std::move(jm.joint);
      out.push_back(std::move(joint));
    }
  }
  if (out.empty())
    throw DataError("select --by: no fitted candidate to compare over the groups of " + where(c));
  mark_groups(set, *groups, c);
  return out;
}

}  // namespace perfit::select
