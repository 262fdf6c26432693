// The `select:` entries of a batch manifest (docs/batch.md "Selection entries"): every set they
// match, selected among the entry's candidates as `perfit select --set GLOB --out DIR` does
// (perfit/select/many_sets.hpp), after the batch's fits, into DIR/selection.h5, .csv and .json.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "perfit/batch/plan.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/select/ledger.hpp"
#include "perfit/select/select_set.hpp"

namespace perfit::select {

class BatchSelections {
 public:
  // Every rank. Throws: ConfigError naming the entry (a bad select: key, a glob matching
  // nothing, a set selected twice).
  BatchSelections(const io::Manifest& m, const std::string& dir);
  bool empty() const { return plan_.tasks.empty(); }
  std::size_t size() const { return plan_.tasks.size(); }
  // What identifies each selection: changed since the first run means another batch. Its
  // entries' options in full, its sets as {"count", "fnv1a64"}: a digest of their rows.
  nlohmann::ordered_json fingerprint() const;
  // World rank 0, before any work. Throws: ConfigError / IoError naming the file.
  void check_outputs(const std::string& dir) const;
  // Collective over world (MPI_COMM_NULL: serial); the ledger on world rank 0. threads: per
  // rank, as SelectManyRun's.
  std::optional<SelectionLedger> run(const std::string& dir, bool resume, unsigned threads,
                                     MPI_Comm world) const;

 private:
  batch::SelectPlan plan_;
  std::deque<SelectArgs> args_;  // one per entry (a deque: units point into it)
  std::string manifest_;
};

// The sets' digest of a plan an earlier perfit wrote with every set as a row [set, entry, data,
// checksum]: what fingerprint() gives for those sets. Throws: nlohmann's exceptions for other
// JSON.
nlohmann::ordered_json sets_fingerprint(const nlohmann::ordered_json& rows);

// A batch task of a `select:` entry with `by` (batch::FitTask::select_yaml): the set's joint
// selection on the group's ranks, then the winner fitted on every row and written to t.cfg.out
// with its kinds of constant, as `perfit select --set S --by COLUMN --out F` does. Collective
// over group (MPI_COMM_NULL: serial). Throws: as select_set, ConfigError naming the entry.
job::FitJobOutcome run_joint_selection(const batch::FitTask& t, MPI_Comm group, bool resume);

}  // namespace perfit::select
