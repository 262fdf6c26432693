// A batch manifest expanded into its fits: each entry's set globs x models, one RunConfig per
// fit (defaults, then the manifest's options, then the entry's), its result file name, and the
// work it is expected to take, so that the scheduler hands out the longest fits first.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfit/fit/run_config.hpp"
#include "perfit/io/batch_manifest.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::batch {

struct FitTask {
  std::size_t index = 0;   // in expansion order (manifest entries, sets sorted, models as listed)
  std::string set, model;  // model: the manifest's word (built-in name or path)
  std::string model_name;  // the model's own name
  std::string model_yaml;  // the model as fitted (a result file keeps the same text)
  std::string data_checksum;  // the set's, written at import ("" for old stores)
  std::string name;           // result file stem: set path with / -> __, then __<model_name>
  std::string where;          // the manifest entry, for messages
  fit::RunConfig cfg;         // complete: data, set, model, out and checkpoint_dir filled in
  double work = 0.0;          // expected cost: rows x params
  // A select: entry with `by` in its options: the selection's options (YAML), and the task is
  // one set's joint selection (model, model_name "select"; model_yaml "" until the winner).
  std::string select_yaml;
};

// The expected work of a joint selection per row, in the units of a fit's rows x params: every
// candidate in three kinds of constant over held-out folds, then the winner's fit.
inline constexpr double kJointSelectionWork = 200.0;

// Reads the stores the manifest names (set lists and row counts) and the models. A select:
// entry whose options have `by` gives a task per set (its joint selection); the other select:
// entries are plan_selections'.
// Throws: ConfigError naming the glob and the sets present when a glob matches nothing, a
// model that cannot be loaded, options a fit rejects, or two entries that would write the same
// result file with different options; DataError/IoError for an unreadable store.
std::vector<FitTask> plan_batch(const io::Manifest& manifest, const std::string& results_dir);

// A manifest's `select:` entries without `by`: each entry's options once, and every set it selects
// (sets are selected among candidates, not fitted with a named model; their winners go into the
// batch's selection store, perfit/select/many_sets.hpp). A set holds only its name and its entry,
// so that 10^5 sets do not hold 10^5 copies of the options.
struct SelectEntry {
  std::string where;        // the manifest entry, for messages
  std::string select_yaml;  // its select: map
  fit::RunConfig cfg;  // its fit options; data filled in, out = results_dir/selection.h5, no set
};
struct SelectTask {
  std::string set;
  std::size_t entry = 0;  // in SelectPlan::entries
};
struct SelectPlan {
  std::vector<SelectEntry> entries;
  std::vector<SelectTask> tasks;
  // Each data file, open: a store of 10^6 sets reads their names at each open, and the plan,
  // its fingerprint and the selection each opened it.
  std::map<std::string, std::shared_ptr<io::StoreReader>> stores;
};

// Throws: as plan_batch, and ConfigError for one set in two select entries (the selection
// store holds one winner per set).
SelectPlan plan_selections(const io::Manifest& manifest, const std::string& results_dir);

// Indices of tasks, longest expected first (ties in manifest order).
std::vector<std::size_t> longest_first(const std::vector<FitTask>& tasks);

// "/mxnet/resnet50" and "generic" -> "mxnet__resnet50__generic" (other than [A-Za-z0-9._-]: '_').
std::string result_stem(const std::string& set, const std::string& model_name);

}  // namespace perfit::batch
