#include "batch_selections.hpp"

#include <map>

#include "perfit/fit/run_config.hpp"
#include "perfit/io/store_reader.hpp"
#include "select_many.hpp"

namespace perfit::app {

BatchSelections::BatchSelections(const io::Manifest& m, const std::string& dir)
    : tasks_(batch::plan_selections(m, dir)), manifest_(m.path) {
  std::string where;
  for (const auto& t : tasks_) {
    if (t.where != where) {
      where = t.where;
      args_.emplace_back();
      apply_select_yaml(t.select_yaml, where + " key 'select'", args_.back());
    }
    args_of_.push_back(&args_.back());
  }
}

nlohmann::ordered_json BatchSelections::fingerprint() const {
  // Per entry its options (the same for each of its sets, but for the set), per set its data.
  // Rows, not an object keyed by set: an ordered_json object finds a key by a linear search.
  nlohmann::ordered_json entries = nlohmann::ordered_json::object(), sets = nlohmann::ordered_json::array();
  std::map<std::string, io::StoreReader> stores;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    const std::string& data = tasks_[i].cfg.data;
    if (!stores.count(data)) stores.emplace(data, io::StoreReader(data));
    if (!entries.contains(tasks_[i].where)) {
      fit::RunConfig c = tasks_[i].cfg;
      c.set.clear();
      entries[tasks_[i].where] = {{"config", fit::run_config_to_yaml(c)}, {"select", select_choice_text(*args_of_[i])}};
    }
    sets.push_back({tasks_[i].set, tasks_[i].where, data, stores.at(data).set_attribute(tasks_[i].set, "checksum")});
  }
  return {{"entries", entries}, {"sets", sets}};
}

void BatchSelections::check_outputs(const std::string& dir) const {
  if (!empty()) check_selection_outputs(dir, tasks_.front().cfg.data, true);
}

std::optional<SelectionLedger> BatchSelections::run(const std::string& dir, bool resume, MPI_Comm world) const {
  SelectManyRun r;
  r.out = dir;
  r.resume = resume;
  r.about = {{"manifest", manifest_}};
  for (std::size_t i = 0; i < tasks_.size(); ++i) r.units.push_back({args_of_[i], tasks_[i].cfg});
  return select_sets(r, world);
}

}  // namespace perfit::app
