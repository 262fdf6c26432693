#include "perfit/select/batch_entries.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>
#include <vector>

#include "perfit/fit/run_config.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/mpi/agreement.hpp"
#include "perfit/select/many_sets.hpp"
#include "perfit/select/winner.hpp"

namespace perfit::select {

BatchSelections::BatchSelections(const io::Manifest& m, const std::string& dir)
    : plan_(batch::plan_selections(m, dir)), manifest_(m.path) {
  for (const auto& e : plan_.entries) {
    args_.emplace_back();
    apply_select_yaml(e.select_yaml, e.where + " key 'select'", args_.back());
  }
  // Entries with `by` run as the batch's tasks (run_joint_selection): a bad key in theirs is
  // refused here too, before any work.
  for (const auto& e : m.fits) {
    SelectArgs checked;
    if (!e.select_yaml.empty())
      apply_select_yaml(e.select_yaml, e.where + " key 'select'", checked);
  }
}

namespace {

// FNV-1a 64 over each field of each set's row, a separator after each field: equal digests mean
// the same sets, entries, data and checksums in the same order.
class RowsDigest {
 public:
  void field(std::string_view text) {
    for (const unsigned char c : text) step(c);
    step(0xff);  // no byte of UTF-8 text
  }
  nlohmann::ordered_json json() const {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h_));
    return {{"count", rows_}, {"fnv1a64", hex}};
  }
  void row() { ++rows_; }

 private:
  void step(unsigned char c) {
    h_ ^= c;
    h_ *= 0x100000001b3ULL;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
  std::size_t rows_ = 0;
};

}  // namespace

nlohmann::ordered_json BatchSelections::fingerprint() const {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < plan_.entries.size(); ++k) {
    entries.push_back({plan_.entries[k].where, fit::run_config_to_yaml(plan_.entries[k].cfg),
                       select_choice_text(args_[k])});
  }
  // The sets as one digest of their rows (set, entry, data, checksum): 10^6 sets as JSON rows
  // were a plan file of 110 MB and most of a selection's 7 s start.
  std::map<std::string, std::vector<std::string>> sets_in;  // data -> its sets, in task order
  for (const auto& t : plan_.tasks) sets_in[plan_.entries[t.entry].cfg.data].push_back(t.set);
  std::map<std::string, std::vector<std::string>> checksums;
  for (const auto& [data, in] : sets_in)
    checksums.emplace(data, plan_.stores.at(data)->set_attributes(in, "checksum"));
  std::map<std::string, std::size_t> next;  // data -> its next checksum
  RowsDigest sets;
  for (const auto& t : plan_.tasks) {
    const std::string& data = plan_.entries[t.entry].cfg.data;
    sets.row();
    sets.field(t.set);
    sets.field(std::to_string(t.entry));
    sets.field(data);
    sets.field(checksums.at(data).at(next[data]++));
  }
  return {{"entries", entries}, {"sets", sets.json()}};
}

nlohmann::ordered_json sets_fingerprint(const nlohmann::ordered_json& rows) {
  RowsDigest sets;
  for (const auto& r : rows) {
    sets.row();
    sets.field(r.at(0).get<std::string>());
    sets.field(std::to_string(r.at(1).get<std::size_t>()));
    sets.field(r.at(2).get<std::string>());
    sets.field(r.at(3).get<std::string>());
  }
  return sets.json();
}

void BatchSelections::check_outputs(const std::string& dir) const {
  if (!empty()) check_selection_outputs(dir, plan_.entries.front().cfg.data, true);
}

std::optional<SelectionLedger> BatchSelections::run(const std::string& dir, bool resume,
                                                    unsigned threads, MPI_Comm world) const {
  SelectManyRun r;
  r.out = dir;
  r.resume = resume;
  r.threads = threads;
  r.about = {{"manifest", manifest_}};
  r.stores = plan_.stores;
  for (const auto& t : plan_.tasks)
    r.units.push_back({&args_[t.entry], &plan_.entries[t.entry].cfg, t.set});
  return select_sets(r, world);
}

job::FitJobOutcome run_joint_selection(const batch::FitTask& t, MPI_Comm group, bool resume) {
  SelectArgs a;
  apply_select_yaml(t.select_yaml, t.where + " key 'select'", a);
  const Guard guard = [&](const std::function<void()>& fn) {
    if (group == MPI_COMM_NULL) {
      fn();
    } else {
      mpi::all_or_none(group, fn);
    }
  };
  const Selection s = select_set(a, t.cfg, guard, group);
  job::FitJob job = winner_job(a, t.cfg, s);
  job.force = true;  // our own result file; its kind was checked before the first task
  job.resume = resume;
  job.verbose = false;
  return job::run_fit_job(std::move(job), group);
}

}  // namespace perfit::select
