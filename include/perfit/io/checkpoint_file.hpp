// A fit's checkpoint (docs/checkpoint-format.md): every island's full state (population,
// costs, RNG, adaptive memories, archive, generation, evaluations, elapsed time, history) as
// exact 64-bit words, the job's epoch count and history, and what it was run with (config as
// run, model, data checksum, rank count, perfit version), so a resume can refuse a mismatch.
// Written to a temporary name and renamed: a kill at any moment leaves the previous one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perfit::io {

inline constexpr const char* kCheckpointFormat = "perfit-checkpoint-1";

// What the job as a whole had done: epochs voted on, the global best after each, seconds spent.
struct CheckpointProgress {
  std::size_t epochs_done = 0;
  std::vector<double> history;
  double seconds = 0.0;
};

struct Checkpoint {
  std::string config_yaml;  // the options that decide the result (run_config_to_yaml)
  std::string model_yaml;
  std::string data_file, set, data_checksum;
  int ranks = 1;
  std::string perfit_version, created_utc;
  CheckpointProgress job;
  std::vector<std::vector<std::uint64_t>> islands;  // index = island: its state as exact words
};

// The checkpoint file of a checkpoint directory.
std::string checkpoint_path(const std::string& dir);

// Throws: IoError / H5Error naming the checkpoint (never its temporary file).
void write_checkpoint(const std::string& path, const Checkpoint& c);
// Throws: IoError if missing; DataError if not a complete perfit checkpoint.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace perfit::io
