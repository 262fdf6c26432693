#include "perfit/batch/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::batch {

namespace {

namespace fs = std::filesystem;

// A store's sets, and the rows and checksum of those a manifest names, read when first asked
// for (a store of 10^5 sets whose manifest names a few is not described set by set).
struct StoreSets {
  std::shared_ptr<io::StoreReader> store;
  std::vector<std::string> sets;
  std::map<std::string, std::pair<std::size_t, std::string>> described;  // set -> rows, checksum

  const std::pair<std::size_t, std::string>& describe(const std::string& set) {
    auto it = described.find(set);
    if (it != described.end()) return it->second;
    const io::SetInfo info = store->info(set);
    const auto c = info.attributes.find("checksum");
    return described
        .emplace(set,
                 std::make_pair(info.rows,
                                c == info.attributes.end() ? "" : data::attribute_text(c->second)))
        .first->second;
  }
  std::size_t rows(const std::string& set) { return describe(set).first; }
  std::string checksum(const std::string& set) { return describe(set).second; }
};

StoreSets& sets_of(std::map<std::string, StoreSets>& cache, const std::string& data) {
  auto it = cache.find(data);
  if (it != cache.end()) return it->second;
  StoreSets s;
  s.store = std::make_shared<io::StoreReader>(data);
  s.sets = s.store->sets();
  return cache.emplace(data, std::move(s)).first->second;
}

// The sets of one entry: every glob must match, a set matched twice is fitted once.
std::vector<std::string> expand_sets(const io::ManifestEntry& e, const StoreSets& store) {
  std::vector<std::string> out;
  // A store's sets are distinct: only several globs can match a set twice (hashing 10^6 names
  // for nothing, and sorting them again, was a second of a selection's start).
  const bool several = e.sets.size() > 1;
  std::unordered_set<std::string> seen;
  for (const auto& glob : e.sets) {
    bool any = false;
    for (const auto& set : store.sets) {
      if (!io::set_matches(glob, set)) continue;
      any = true;
      if (!several || seen.insert(set).second) out.push_back(set);
    }
    if (!any) {
      throw ConfigError(e.where + ": set glob '" + glob + "' matches no set of '" + e.data +
                        "' (sets there: " + join_some(store.sets) + ")");
    }
  }
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  return out;
}

fit::RunConfig fit_config(const io::Manifest& m, const io::ManifestEntry& e) {
  fit::RunConfig cfg;
  if (!m.options_yaml.empty()) fit::apply_run_config_yaml(m.options_yaml, m.path + " options", cfg);
  if (!e.options_yaml.empty())
    fit::apply_run_config_yaml(e.options_yaml, e.where + " options", cfg);
  if (m.checkpoint_every > 0) cfg.checkpoint_every = static_cast<std::size_t>(m.checkpoint_every);
  cfg.data = e.data;
  return cfg;
}

}  // namespace

std::string result_stem(const std::string& set, const std::string& model_name) {
  std::string s;
  for (std::size_t i = set.front() == '/' ? 1 : 0; i < set.size(); ++i) {
    s += set[i] == '/' ? std::string("__") : std::string(1, set[i]);
  }
  s += "__" + model_name;
  for (char& c : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

namespace {

// A task's result file and checkpoints in results_dir, its options checked as a fit checks them.
void place(FitTask& t, const std::string& results_dir) {
  t.cfg.out = (fs::path(results_dir) / (t.name + ".h5")).string();
  t.cfg.checkpoint_dir = (fs::path(results_dir) / ".checkpoints" / t.name).string();
  try {
    fit::RunConfig check = t.cfg;
    check.resolve();
  } catch (const ConfigError& err) {
    throw ConfigError(t.where + ": " + err.what());
  }
}

// Adds t unless the same (set, model) with the same options is planned already.
void add_task(std::vector<FitTask>& tasks, std::map<std::string, std::size_t>& by_name, FitTask t) {
  const auto dup = by_name.find(t.name);
  if (dup != by_name.end()) {
    const FitTask& first = tasks[dup->second];
    if (fit::run_config_to_yaml(first.cfg) == fit::run_config_to_yaml(t.cfg) &&
        first.select_yaml == t.select_yaml)
      return;
    throw ConfigError(t.where + ": set '" + t.set + "' with model '" + t.model_name +
                      "' is also in " + first.where +
                      " with other data or options; both would write '" + t.name +
                      ".h5'. Fit each (set, model) pair once");
  }
  t.index = tasks.size();
  by_name.emplace(t.name, t.index);
  tasks.push_back(std::move(t));
}

// A select: entry whose options split the rows into groups (by): one joint selection per set,
// its winner written as a result file (the selection store holds one series' winner per set).
void add_joint_selections(const io::ManifestEntry& e, const fit::RunConfig& base,
                          const std::vector<std::string>& sets, StoreSets& store,
                          const std::string& results_dir, std::vector<FitTask>& tasks,
                          std::map<std::string, std::size_t>& by_name) {
  for (const auto& set : sets) {
    FitTask t;
    t.set = set;
    t.model = t.model_name = "select";
    t.select_yaml = e.select_yaml;
    t.data_checksum = store.checksum(set);
    t.name = result_stem(set, "select");
    t.where = e.where;
    t.cfg = base;
    t.cfg.set = set;
    place(t, results_dir);
    // Every candidate in three kinds of constant, each over held-out folds: far more than one fit.
    t.work = static_cast<double>(store.rows(set)) * kJointSelectionWork;
    add_task(tasks, by_name, std::move(t));
  }
}

}  // namespace

std::vector<FitTask> plan_batch(const io::Manifest& manifest, const std::string& results_dir) {
  std::map<std::string, StoreSets> stores;
  std::map<std::string, model::ModelSpec> models;
  std::map<std::string, std::size_t> by_name;  // result stem -> task
  std::vector<FitTask> tasks;
  for (const auto& e : manifest.fits) {
    const fit::RunConfig base = fit_config(manifest, e);
    const bool joint_selection = !e.select_yaml.empty() && !base.by.empty();
    if (e.models.empty() && !joint_selection) continue;  // a select: entry (plan_selections)
    StoreSets& store = sets_of(stores, e.data);
    const std::vector<std::string> sets = expand_sets(e, store);
    if (joint_selection) {
      add_joint_selections(e, base, sets, store, results_dir, tasks, by_name);
      continue;
    }
    for (const auto& model : e.models) {
      const std::string key = model + "\n" + base.factors;
      if (!models.count(key)) models.emplace(key, io::load_model(model, base.factors));
      const model::ModelSpec& spec = models.at(key);
      for (const auto& set : sets) {
        FitTask t;
        t.set = set;
        t.model = model;
        t.model_name = spec.name;
        t.model_yaml = io::model_to_yaml(spec);
        t.data_checksum = store.checksum(set);
        t.name = result_stem(set, spec.name);
        t.where = e.where;
        t.cfg = base;
        t.cfg.set = set;
        t.cfg.model = model;
        place(t, results_dir);
        t.work = static_cast<double>(store.rows(set)) * static_cast<double>(spec.params.size());
        add_task(tasks, by_name, std::move(t));
      }
    }
  }
  return tasks;
}

SelectPlan plan_selections(const io::Manifest& manifest, const std::string& results_dir) {
  std::map<std::string, StoreSets> stores;
  // set -> the entry that selects it, from the second selecting entry on: one entry's sets are
  // distinct (10^6 names hashed for nothing were a second of a selection's start).
  std::unordered_map<std::string, std::string> seen;
  SelectPlan plan;
  for (const auto& e : manifest.fits) {
    if (e.select_yaml.empty()) continue;
    SelectEntry entry{e.where, e.select_yaml, fit_config(manifest, e)};
    if (!entry.cfg.by.empty()) continue;  // joint selections: plan_batch, a result file per set
    StoreSets& store = sets_of(stores, e.data);
    entry.cfg.out = (fs::path(results_dir) / "selection.h5").string();
    const bool later = !plan.entries.empty();
    if (later && seen.empty()) {
      for (const auto& t : plan.tasks) seen.emplace(t.set, plan.entries[t.entry].where);
    }
    for (auto& set : expand_sets(e, store)) {
      if (later) {
        if (const auto it = seen.find(set); it != seen.end()) {
          throw ConfigError(
              e.where + ": set '" + set + "' is selected in " + it->second +
              " too; the selection store holds one winner per set. Select each set once");
        }
        seen.emplace(set, e.where);
      }
      plan.tasks.push_back({std::move(set), plan.entries.size()});
    }
    try {  // the entry's options as a fit checks them (the set is the only thing a set changes)
      fit::RunConfig check = entry.cfg;
      check.set = plan.tasks.back().set;
      check.resolve();
    } catch (const ConfigError& err) {
      throw ConfigError(e.where + ": " + err.what());
    }
    plan.entries.push_back(std::move(entry));
  }
  for (const auto& [data, s] : stores) plan.stores.emplace(data, s.store);
  return plan;
}

std::vector<std::size_t> longest_first(const std::vector<FitTask>& tasks) {
  std::vector<std::size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return tasks[a].work > tasks[b].work; });
  return order;
}

}  // namespace perfit::batch
