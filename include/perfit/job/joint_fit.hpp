// A fit job's joint-fit part (`fit --by`): the groups of the whole set, each constant's kind,
// the model over the groups, and once the rows are read the pooled constants' strengths.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/island/island_model.hpp"
#include "perfit/job/groups.hpp"
#include "perfit/job/pool_strength.hpp"
#include "perfit/model/grouped_model.hpp"

namespace perfit::job {

struct JointFit {
  Groups groups;
  model::ModelSpec base;  // the bound spec before the groups
  model::ConstantKinds kinds;
  Alone alone;  // every group fitted alone, once the rows are read (choose_pools)
  bool empty() const { return groups.empty(); }
};

// cfg.by's groups over the whole set (`read_keys` returns the --by columns of every row) and
// `spec` (bound) rewritten over them, the pooled constants at strength 0 until choose_pools;
// `columns` (the set's) gets the group indicators. `where` names the set.
// Throws: ConfigError for a --by column the set lacks or a bad list of constants; DataError for
// a --by that gives one group.
JointFit plan_joint_fit(
    const fit::RunConfig& cfg, model::ModelSpec& spec, std::vector<std::string>& columns,
    const std::function<data::MeasurementTable(const std::vector<std::string>&)>& read_keys,
    const std::string& where);

// Every group fitted alone (j.alone: the joint search's start) and the pooled constants'
// strengths (job/pool_strength.hpp) recorded in j.groups; returns the spec with them.
// `problem`: the fit's, on this rank's rows. Collective over layout.world.
model::ModelSpec choose_pools(JointFit& j, const fit::RunConfig& cfg,
                              const fit::FitProblem& problem, const island::IslandLayout& layout);

// A cross-validation fold's recipe (fit::FoldJob::prepare) for a joint fit: on the fold's
// training rows, serially, every group fitted alone chooses the pooled strengths and starts the
// search, as choose_pools does on every row, so that held-out rows choose nothing.
std::function<void(fit::FitProblem&)> fold_recipe(const JointFit& joint, const fit::RunConfig& cfg);

}  // namespace perfit::job
