// A selection over many sets in one job (Extra-P's daily job: a model per call path x metric):
// `perfit select --set GLOB` and the `select:` entries of a batch manifest. The sets go out in
// chunks to the ranks as they ask (batch/scheduler), each rank selects its chunk on its threads
// (one set per thread at a time) and fits the winners on every row, and world rank 0 keeps one
// summary row and the winner of each set (SelectionLedger), written to DIR at most every few
// seconds and at the end.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/io/store_reader.hpp"
#include "perfit/select/ledger.hpp"
#include "perfit/select/select_set.hpp"

namespace perfit::select {

// One set of a selection over many: how it is selected, its fit options (shared by the sets
// of one entry or glob: cfg->set is not it; cfg->out is DIR/selection.h5) and the set.
struct SelectUnit {
  const SelectArgs* args = nullptr;
  const fit::RunConfig* cfg = nullptr;
  std::string set;
  fit::RunConfig config() const;  // *cfg for this set
};

struct SelectManyRun {
  std::vector<SelectUnit> units;  // distinct sets
  std::string out;                // DIR ("" : nothing written)
  nlohmann::ordered_json about;   // data, sets, criterion: the top of selection.json
  bool resume = false;            // take the ok rows an earlier run wrote to DIR
  // Threads per rank selecting sets side by side (0: as many as the rank's CPUs, shared with
  // the node's other ranks: mpi/rank_cpus.hpp). Each set is selected by one thread as it would
  // be alone: the answers do not depend on it.
  unsigned threads = 1;
  // Stores of the units' data already open (a batch's plan): not opened again.
  std::map<std::string, std::shared_ptr<io::StoreReader>> stores;
};

// Collective over world (MPI_COMM_NULL: serial; else MPI_THREAD_MULTIPLE). Returns the ledger on
// world rank 0 (nullopt elsewhere); a set whose selection fails is a row with status error and
// its message, a set not started before an interrupt stays pending. Throws: MpiError; IoError
// when DIR cannot be written.
std::optional<SelectionLedger> select_sets(const SelectManyRun& run, MPI_Comm world);

// `perfit select --set GLOB`: one row per set (or --json), or with --out DIR the selection's
// files. Throws: ConfigError for a glob that matches nothing or an output it may not write;
// DataError when every set failed (the first set's message).
int run_select_many(const SelectArgs& a, const fit::RunConfig& cfg);

}  // namespace perfit::select
