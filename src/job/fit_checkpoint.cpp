#include "perfit/job/fit_checkpoint.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "perfit/core/error.hpp"
#include "perfit/core/utc_time.hpp"
#include "perfit/core/version.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/output_guard.hpp"

namespace perfit::job {

namespace {

// Keys that do not change the result: a resumed run may set them differently.
bool result_neutral(const std::string& key) {
  return key == "out" || key == "progress_every" || key == "checkpoint_dir" ||
         key == "checkpoint_every";
}

}  // namespace

io::Checkpoint checkpoint_header(const fit::RunConfig& cfg, const std::string& model_yaml,
                                 const std::string& data_checksum, int ranks) {
  io::Checkpoint c;
  c.config_yaml = fit::run_config_to_yaml(cfg);
  c.model_yaml = model_yaml;
  c.data_file = cfg.data;
  c.set = cfg.set;
  c.data_checksum = data_checksum;
  c.ranks = ranks;
  c.perfit_version = version();
  return c;
}

std::optional<io::Checkpoint> load_for_resume(const fit::RunConfig& cfg,
                                              const io::Checkpoint& now) {
  const std::string path = io::checkpoint_path(cfg.checkpoint_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    spdlog::info("--resume: no checkpoint in '{}' yet, starting fresh", cfg.checkpoint_dir);
    return std::nullopt;
  }
  io::Checkpoint c = io::read_checkpoint(path);
  const std::string refuse = "cannot resume from '" + path + "': ";
  if (c.data_checksum != now.data_checksum) {
    throw ConfigError(refuse + "the data differs (checkpoint: '" + c.data_file + "' set '" + c.set +
                      "' checksum " + c.data_checksum + "; now: '" + now.data_file + "' set '" +
                      now.set + "' checksum " + now.data_checksum + ")");
  }
  if (c.model_yaml != now.model_yaml) {
    throw ConfigError(refuse +
                      "the model differs from the one checkpointed (model_yaml); fit "
                      "with the same model, or use another --checkpoint-dir");
  }
  if (c.ranks != now.ranks) {
    throw ConfigError(refuse + "it was written by a job of " + std::to_string(c.ranks) +
                      " ranks, this job has " + std::to_string(now.ranks) +
                      "; resume with the same rank count");
  }
  fit::RunConfig then;
  fit::apply_run_config_yaml(c.config_yaml, path + " config_yaml", then);
  for (const auto& o : fit::run_config_option_table()) {
    if (result_neutral(o.key)) continue;
    const std::string a = o.format(then), b = o.format(cfg);
    if (a != b) {
      throw ConfigError(refuse + "option '" + o.key + "' was '" + a + "', now '" + b +
                        "'; resume with the same options (or use another --checkpoint-dir)");
    }
  }
  spdlog::info("resuming from '{}': {} epochs done, {:.1f} s spent (written {})", path,
               c.job.epochs_done, c.job.seconds, c.created_utc);
  return c;
}

void prepare_checkpoint_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec)) {
    throw IoError("cannot create checkpoint directory '" + dir + "'");
  }
  io::check_output(
      {io::checkpoint_path(dir), "--checkpoint-dir", io::FileKind::checkpoint, {}, true});
}

void add_checkpoint_hook(island::RunHooks& hooks, const io::Checkpoint& header,
                         const std::string& dir) {
  hooks.checkpoint = [header, dir](const std::vector<std::vector<std::uint64_t>>& islands,
                                   const island::JobSnapshot& job) {
    const auto t0 = std::chrono::steady_clock::now();
    io::Checkpoint c = header;
    c.islands = islands;
    c.job = {job.epochs_done, job.history, job.seconds};
    c.created_utc = utc_now();
    io::write_checkpoint(io::checkpoint_path(dir), c);
    spdlog::debug("checkpoint: epoch {} in {:.3f} s", job.epochs_done,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
}

namespace {
std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

void remember_command_line(int argc, char** argv) { command_line().assign(argv, argv + argc); }

std::string resume_command() {
  std::string s;
  bool has_resume = false;
  for (const auto& a : command_line()) {
    has_resume = has_resume || a == "--resume";
    const bool plain = a.find_first_of(" \t'\"$;&|<>*?") == std::string::npos && !a.empty();
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return has_resume ? s : s + " --resume";
}

}  // namespace perfit::job
