// One `perfit fit` run on a communicator: set-up checks agreed on by every rank, the rows of
// this rank's slice, the engine, and the result file written by the communicator's rank 0.
// `perfit fit` runs one job on MPI_COMM_WORLD; `perfit batch` runs many, each on its group.
#pragma once

#include <mpi.h>

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

struct FitJob {
  fit::RunConfig cfg;                     // resolved by the job
  std::optional<model::ModelSpec> model;  // instead of loading cfg.model (select's searched winner)
  std::vector<std::string> inputs;        // files besides data and model the job reads (a config)
  bool force = false;                     // replace an existing result at cfg.out
  bool write = true;    // false: the result is returned, not written (cfg.out unused)
  bool resume = false;  // continue from cfg.checkpoint_dir's checkpoint
  // Rows given in memory (the Python package) instead of cfg.data's set, which then only names
  // them in messages and in the result; serial runs only. The job may drop invalid rows from it.
  std::shared_ptr<data::MeasurementTable> table;
  // Polled once per generation instead of the process's signal flag (Python's Ctrl-C).
  std::function<bool()> interrupted;
  bool verbose = true;  // set-up, progress and warnings at info; false: debug
  bool keep_rows =
      true;  // the result keeps its rows (ResultFile::kept_rows); selection stores do not
  // select --out: the selection's candidates (ResultFile::candidates); rank 1's constants are this
  // fit's.
  std::vector<io::CandidateFit> candidates;
  // With a checkpoint dir: every checkpoint_every generations too, or only when interrupted.
  bool periodic_checkpoints = true;
  // select: what its validation measured of the chosen procedure (io::ResultFile::choice_*).
  double choice_log_sd = std::numeric_limits<double>::quiet_NaN();
  std::size_t choice_dof = 0;
  std::string choice_how;
  double choice_step_log = std::numeric_limits<double>::quiet_NaN(),
         choice_growth = std::numeric_limits<double>::quiet_NaN();
  // A naive procedure's constants, estimated from the rows though not fitted as params: each
  // takes a degree of freedom from the noise estimate (ResultFile::noise_dof).
  std::size_t constants_estimated = 0;
};

struct FitJobOutcome {
  int code = 0;               // 0, or kInterruptedExit
  bool checkpointed = false;  // interrupted and saved: no result was written
  std::size_t generations = 0;
  std::string out, checkpoint_dir;       // as resolved from the config
  std::optional<io::ResultFile> result;  // rank 0 of comm, once written to cfg.out (FitJob::write)
};

// Collective over comm (MPI_COMM_NULL or a one-rank comm: serial, no MPI call).
// Throws: perfit::Error (AgreedError on every rank under MPI) for bad options or data, a
// non-finite cost, or an output that may not be written.
FitJobOutcome run_fit_job(FitJob job, MPI_Comm comm);

}  // namespace perfit::job
