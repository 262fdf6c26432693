// Checkpoint and resume of `perfit fit`: what a checkpoint records of the run, the refusal of
// one that does not match the command (naming what differs), and the hook that writes it.
#pragma once

#include <optional>
#include <string>

#include "perfit/fit/run_config.hpp"
#include "perfit/io/checkpoint_file.hpp"
#include "perfit/island/island_model.hpp"

namespace perfit::job {

// What this run is, as a checkpoint records it (no island states yet).
io::Checkpoint checkpoint_header(const fit::RunConfig& cfg, const std::string& model_yaml,
                                 const std::string& data_checksum, int ranks);

// With --resume: the checkpoint in cfg's checkpoint dir, or nullopt (none yet: start fresh).
// Throws: ConfigError naming the first difference (data checksum, model, option, rank count);
// DataError for a corrupt checkpoint.
std::optional<io::Checkpoint> load_for_resume(const fit::RunConfig& cfg, const io::Checkpoint& now);

// Creates the checkpoint dir if missing and checks a checkpoint can be written there.
// Throws: IoError / ConfigError (a file of another kind at DIR/checkpoint.h5).
void prepare_checkpoint_dir(const std::string& dir);

// The hook that writes DIR/checkpoint.h5 (world rank 0).
void add_checkpoint_hook(island::RunHooks& hooks, const io::Checkpoint& header,
                         const std::string& dir);

// The command line as typed (main() records it), and the same with --resume for the message
// an interrupted fit prints.
void remember_command_line(int argc, char** argv);
std::string resume_command();

}  // namespace perfit::job
