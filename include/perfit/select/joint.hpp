// Validation and selection of joint fits (`validate --by`, `select --by`): the groups found
// once over the whole set so that every fold names them alike, a model rewritten over them,
// and each fold fitted as `fit --by` fits every row: the groups alone on the fold's training
// rows choose the pooled strengths and start the search there (docs/joint.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "perfit/fit/engine.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/job/analysis_set.hpp"
#include "perfit/job/joint_fit.hpp"
#include "perfit/select/candidates.hpp"

namespace perfit::select {

struct JointModel {
  job::JointFit joint;
  std::shared_ptr<const model::Model>
      model;  // over the groups, pooled strengths 0 until a fold chooses them
};

// c.by's groups of set's rows (which hold the by columns) and `base` rewritten over them with
// c's kinds of constant. Throws: ConfigError / DataError as job::plan_joint_fit.
JointModel plan_joint(const fit::RunConfig& c, const model::Model& base,
                      const job::AnalysisSet& set);

// set.rows with the groups' indicator columns. Throws: ConfigError as job::add_group_columns.
void mark_groups(job::AnalysisSet& set, const job::Groups& g, const fit::RunConfig& c);

// The kinds of constant a joint selection compares: the ones c names, or with none named
// every constant pooled (strengths chosen), shared, and per group. `label` says which.
struct JointKinds {
  std::string label;
  fit::RunConfig cfg;  // c with the lists of that kind
};
std::vector<JointKinds> kinds_to_compare(const fit::RunConfig& c,
                                         const std::vector<std::string>& constants);

// select --by: each fitted candidate once per kind of constant to compare, over the groups of
// set's rows (which get the indicator columns). Naive and searched candidates are computed per
// series, not fitted over groups: left out, and refused when `named` (--models). A default
// candidate whose constants the kinds given do not fit is left out with a line saying why.
// Throws: ConfigError, DataError (no candidate left).
std::vector<Candidate> joint_candidates(std::vector<Candidate> cands, bool named,
                                        const fit::RunConfig& c, job::AnalysisSet& set);

}  // namespace perfit::select
