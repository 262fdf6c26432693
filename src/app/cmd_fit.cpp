// `perfit fit`: the options of one fit from --config and flags, run as one job on the world.
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "common_flags.hpp"
#include "option_flags.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/checkpoint_file.hpp"
#include "perfit/job/fit_checkpoint.hpp"
#include "perfit/job/fit_job.hpp"
#include "perfit/job/result_report.hpp"
#include "perfit/mpi/agreement.hpp"

namespace perfit::app {

namespace {

struct FitArgs {
  std::string config;
  bool json = false, force = false, resume = false;
  OptionFlags<fit::RunConfig> flags;
  mpi::MpiEnvironment* env = nullptr;
};

int run_fit(FitArgs& a) {
  const bool parallel = a.env->initialized() && a.env->size() > 1;
  const MPI_Comm comm = parallel ? MPI_COMM_WORLD : MPI_COMM_NULL;
  job::FitJob job;
  const auto read_config = [&] {
    if (!a.config.empty()) fit::load_run_config(a.config, job.cfg);
    a.flags.apply(job.cfg);
  };
  if (parallel) {
    mpi::all_or_none(comm, read_config);
  } else {
    read_config();
  }
  if (!a.config.empty()) job.inputs.push_back(a.config);
  job.force = a.force;
  job.resume = a.resume;
  const job::FitJobOutcome out = job::run_fit_job(std::move(job), comm);
  if (!out.result) {  // not rank 0, or checkpointed
    if (out.checkpointed && (!parallel || a.env->rank() == 0)) {
      std::fprintf(stderr,
                   "perfit: interrupted at generation %zu (signal %d); checkpoint in '%s'; "
                   "resume with: %s\n",
                   out.generations, interrupt_signal(),
                   io::checkpoint_path(out.checkpoint_dir).c_str(), job::resume_command().c_str());
    }
    return out.code;
  }
  const io::ResultFile& r = *out.result;
  const std::string& path = out.out;
  if (a.json) {
    std::cout << job::result_json(r, path).dump(2) << "\n";
  } else {
    job::print_result_table(r);
    std::printf("wrote %s\n", path.c_str());
  }
  if (out.code == kInterruptedExit) {
    std::fprintf(stderr,
                 "perfit: interrupted at generation %zu (signal %d); wrote the best so far "
                 "with stop_reason=interrupted. Pass --checkpoint-dir DIR to make fits resumable\n",
                 out.generations, interrupt_signal());
  }
  return out.code;
}

// The command's own options; the run's are fit::run_config_option_table().
const OptionTable<FitArgs>& fit_options() {
  using A = FitArgs;
  static const OptionTable<A> t = {
      text_option<A>("config", &A::config, "a YAML file", "YAML config (see configs/fit.yaml)"),
      force_option<A>(&A::force, "replace an existing result file at --out"),
      bool_option<A>("resume", &A::resume,
                     "continue from the checkpoint in --checkpoint-dir (none there: start fresh)"),
      json_option<A>(&A::json),
  };
  return t;
}

}  // namespace

void add_fit_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<FitArgs>();
  a->env = &env;
  auto* cmd = add_command(
      app, action, "fit",
      "Fit a model's constants to a measurement set by differential evolution (+ LM polish).\n"
      "Every option is a flag and a key of the YAML --config (configs/fit.yaml lists them with\n"
      "their defaults); flags override the config. Progress goes to stderr, the table (or\n"
      "--json) to stdout. Under mpiexec -n R it runs R islands (docs/islands.md).",
      a, fit_options(), run_fit);
  a->flags.add(cmd, fit::run_config_option_table(), fit::RunConfig{});
}

}  // namespace perfit::app
