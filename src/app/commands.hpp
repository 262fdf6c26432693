// Each subcommand registers its options on the CLI and, when chosen, leaves the work to do
// in `action`, which main() runs after parsing (so errors are handled in one place).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "perfit/mpi/environment.hpp"

namespace perfit::app {

// The chosen command's work and the MPI thread level it needs (main() starts MPI with it).
struct Action {
  std::function<int()> run;
  mpi::ThreadLevel threads = mpi::ThreadLevel::funneled;
};

void add_fit_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env);
void add_validate_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env);
void add_select_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env);
void add_batch_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env);
void add_import_command(CLI::App& app, Action& action);
void add_pingpong_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env);
void add_predict_command(CLI::App& app, Action& action);
void add_explain_command(CLI::App& app, Action& action);
void add_recommend_command(CLI::App& app, Action& action);
void add_show_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_inspect_command(CLI::App& app, Action& action);
void add_models_command(CLI::App& app, Action& action);
void add_synth_command(CLI::App& app, Action& action);

}  // namespace perfit::app
