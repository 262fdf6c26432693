// A fit job's set-up (perfit/job/fit_job.hpp): what every rank reads and decides before the
// first collective: the set described, the model bound to its columns (and groups), the columns
// to load, the checkpoint this run records or resumes from.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfit/fit/engine.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/checkpoint_file.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/job/joint_fit.hpp"

namespace perfit::job {

// What every rank sets up before the first collective.
struct FitSetup {
  fit::RunConfig cfg;
  model::ModelSpec spec;
  std::shared_ptr<const io::StoreReader> store;   // shared with the selection that chose the model
  std::shared_ptr<data::MeasurementTable> given;  // FitJob::table
  io::SetInfo info;
  std::shared_ptr<const model::Model> model;
  std::vector<std::string> load;  // columns the fit reads: factors, target, weights
  std::vector<std::string>
      read;        // of which in the set (not the group indicators), and the --by columns
  JointFit joint;  // --by: a joint fit of groups
  std::vector<std::string> columns;  // the Model's columns: the set's, and the group indicators
  std::string target;
  std::string checksum;                       // the set's, written at import
  io::Checkpoint header;                      // what a checkpoint of this run records
  std::optional<io::Checkpoint> resume_from;  // world rank 0, with --resume
  // This rank's rows compressed as they were read (streamed_rows.hpp), and why a sample of them
  // was fitted ("": every row).
  std::shared_ptr<const model::CompressedRows> streamed;
  std::string sampled;
};

// The engine's problem: the model, these rows and the run's fit options.
fit::FitProblem fit_problem(const FitSetup& s, const std::shared_ptr<data::MeasurementTable>& table,
                            bool quiet);

// Every rank. Throws: ConfigError / DataError / IoError naming the option, file, set or column.
void prepare(const FitJob& a, FitSetup& s, int rank, int world_size);

}  // namespace perfit::job
