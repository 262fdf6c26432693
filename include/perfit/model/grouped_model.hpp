// A model over groups (a joint fit of several frameworks, networks or sets): one expression
// for every group, each constant either shared (one value for all groups) or per group (one
// value per group). It is written as an ordinary model, so that every fit path (variable
// projection, the island model, bootstrap, checkpoints) serves it unchanged: a per-group
// constant c becomes the params c__1 .. c__G, and c in the expression becomes
// (_group1*c__1 + ... + _groupG*c__G), where _groupg is a column that is 1 on group g's rows and
// 0 elsewhere (job/groups.hpp adds them). The expression stays linear in every constant it was
// linear in, so per-group linear constants are still solved by least squares.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/model/model.hpp"

namespace perfit::model {

// The indicator column of group g (1-based): "_group1".
std::string group_indicator(std::size_t g);
// Group g's copy of a per-group constant: "c1__2".
std::string group_param(const std::string& constant, std::size_t g);
// A param name of an expanded spec as (constant, group): ("c1", 2) for "c1__2", (name, 0) for
// a shared one.
std::pair<std::string, std::size_t> split_group_param(const std::string& name);
bool is_group_indicator(const std::string& column);

struct ConstantKinds {
  // In the spec's param order. Pooled constants are per group, drawn toward their common value.
  std::vector<std::string> shared, per_group, pooled;
};

// Which constants are shared, per group or pooled: each list names its constants, and the
// constants no list names are pooled (with none named, every constant is pooled).
// Throws: ConfigError naming a constant in two lists, or a name that is no constant of the
// model (listing them).
ConstantKinds constant_kinds(const ModelSpec& spec, const std::vector<std::string>& shared,
                             const std::vector<std::string>& per_group,
                             const std::vector<std::string>& pooled = {});

// The strength of a pooled constant and its scale (the typical size of the constant).
struct PoolStrength {
  std::string constant;
  double strength = 0.0, scale = 1.0;
};

// The spec over n_groups groups: per_group and pooled constants (names of spec's params) get a
// copy per group, and each pooled one a pool (ModelSpec::pools). The description says so.
// Throws: ConfigError when a name it would create is already a name of the spec.
ModelSpec expand_for_groups(const ModelSpec& spec, std::size_t n_groups,
                            const std::vector<std::string>& per_group,
                            const std::vector<PoolStrength>& pooled = {});

}  // namespace perfit::model
