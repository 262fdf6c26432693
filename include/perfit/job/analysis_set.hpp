// What validation and selection share: their options (the fit's, without the ones that only a
// single written fit has), the ranks they run on, the whole set loaded on every rank, and models
// bound to its columns. Their many small fits then run one per rank (fit/validation.hpp).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/model/model.hpp"
#include "perfit/mpi/environment.hpp"

namespace perfit::job {

// The run-config options that make sense for fits that are not written one by one: no
// checkpoints, progress lines or islands (each fold is a serial fit on one rank); with `joint`
// the options of a joint fit of groups too (--by, --shared, ...: validate).
const OptionTable<fit::RunConfig>& analysis_option_table(bool with_out, bool joint);

// by, shared, per_group, pooled, pool_strength: a joint fit's options (docs/joint.md).
bool is_joint_option(const std::string& key);

// Where an analysis runs: every rank of the MPI environment, or this process alone.
struct Ranks {
  mpi::MpiEnvironment* env = nullptr;
  bool parallel() const {
    return env && env->initialized() && env->size() > 1;
  }  // no env: in-process (Python)
  MPI_Comm comm() const { return parallel() ? MPI_COMM_WORLD : MPI_COMM_NULL; }
  bool root() const { return !parallel() || env->rank() == 0; }
  // Runs fn on every rank and agrees (one message under MPI).
  void agreed(const std::function<void()>& fn) const;
};

// The rows of an analysis: cfg.set of the store cfg.data, or rows given in memory (the Python
// package's DataFrame, its target and unit as attributes), which then stand for that set.
struct SetSource {
  std::shared_ptr<const data::MeasurementTable> given;  // null: the store
};

struct AnalysisSet {
  std::shared_ptr<const data::MeasurementTable> rows;  // the whole set, columns it was asked for
  std::vector<std::string> set_columns;                // every column of the set
  std::string target;
  std::size_t dropped = 0;
};

// Reads `columns` (and the target and weight column) of cfg.set, NaN/inf rows refused or dropped
// as cfg.drop_invalid says. Throws: DataError / IoError naming the file, set and column.
AnalysisSet load_analysis_set(const fit::RunConfig& cfg, std::vector<std::string> columns,
                              const SetSource& source = {});

// A model with cfg.factors bound, over the set's columns (perfit/job/set_binding.hpp); bindings it
// does not read are left out, and with `note` said so once (one model; select checks its
// candidates). Throws: ConfigError / DataError naming the model and the missing column.
std::shared_ptr<const model::Model> bind_model(const std::string& name_or_path,
                                               const fit::RunConfig& cfg,
                                               const std::vector<std::string>& set_columns,
                                               bool note, const SetSource& source = {});

// The set's column names without reading rows. Throws: IoError/DataError.
std::vector<std::string> set_columns(const fit::RunConfig& cfg, const SetSource& source = {});

}  // namespace perfit::job
