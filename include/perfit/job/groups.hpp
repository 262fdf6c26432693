// The groups of a joint fit (`fit --by framework`): the rows split by the values of one or more
// columns, each group named by its values as found (kept as data: "TensorFlow 2.x" stays so).
// The fit and every prediction mark each row's group with indicator columns
// (model/grouped_model.hpp), so that one expression serves every group.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/result_file.hpp"

namespace perfit::job {

struct Groups {
  std::vector<std::string> by;         // the columns
  std::vector<std::string> labels;     // one per group, sorted: its values joined by " / "
  std::vector<std::string> per_group;  // the model's constants fitted per group, independently
  std::vector<std::string> pooled;     // per group, drawn toward their common value
  std::vector<double> pool_strengths;  // how strongly, per pooled constant (job/pool_strength.hpp)
  std::string pool_how;                // how that strength was chosen, in words
  bool empty() const { return by.empty(); }
  // Index (1-based) of a label; 0 when it is no group.
  std::size_t index(const std::string& label) const;
};

// Row i's label ("tf" or "tf / resnet50"). Precondition: every by column is in t.
std::string group_label(const data::MeasurementTable& t, const std::vector<std::string>& by,
                        std::size_t i);

// A label's value per by column (the inverse of group_label). Throws: ConfigError when a value
// itself holds " / ", so that the split is ambiguous.
std::vector<std::string> group_values(const Groups& g, const std::string& label);

// The distinct labels of t's rows. `where` names the rows in messages.
// Throws: DataError naming the missing column (listing the columns), or a --by that gives one
// group only (a joint fit needs two).
Groups find_groups(const data::MeasurementTable& t, const std::vector<std::string>& by,
                   const std::string& where);

// Adds the indicator columns _group1.._groupG (1 on a group's rows, 0 elsewhere).
// Throws: ConfigError for a missing by column or a row whose values are no group of the fit
// (naming them and listing the groups).
void add_group_columns(data::MeasurementTable& t, const Groups& g, const std::string& where);

// A param of a joint fit as (constant, group label): ("c1", "tf") for c1__2 when group 2 is
// tf; (param, "") for a shared one.
std::pair<std::string, std::string> param_group(const Groups& g, const std::string& param);

// A joint fit's warnings in its groups' words: each group's copy of a constant (c3__2) named
// "c3 (group 'pytorch')", then one line per group whose own runs leave constants undetermined
// (params not identifiable), saying what it got instead: pooled, the other groups' values;
// per group, a guess.
std::vector<std::string> group_warnings(const Groups& g, const std::vector<std::string>& warnings,
                                        const std::vector<io::ResultParam>& params);

// The groups a result was fitted over (empty: a fit of one set) and back.
Groups groups_of(const io::ResultFile& r);
void set_groups(io::ResultFile& r, const Groups& g);

}  // namespace perfit::job
