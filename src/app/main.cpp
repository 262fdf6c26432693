// perfit's entry point: parse the command line, run one subcommand, turn typed errors into a
// one-line message and the exit code of their class (README "Exit codes and errors").
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/core/logging.hpp"
#include "perfit/core/version.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/h5_id.hpp"
#include "perfit/job/fit_checkpoint.hpp"
#include "perfit/mpi/environment.hpp"

namespace {

// CLI11's messages can span lines ("... Run with --help for more information."): one line.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // Over a file-size limit (ulimit -f) write() then fails with EFBIG, which perfit reports
  // naming the file and keeping the previous one, instead of SIGXFSZ killing it mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  // A fit allocates and frees row-sized arrays (columns, predictions, Jacobians: 8-48 MB at 1e6
  // rows). glibc serves those with mmap and returns them on free, so every new one is
  // page-faulted in again: measured 30% of a 1.3 s fit in the kernel. Keep freed memory for
  // reuse instead; the peak is the same, the process only does not shrink after it.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  perfit::io::silence_hdf5_errors();
  // MPI starts once the command line is parsed, at the thread level of the chosen command.
  perfit::mpi::MpiEnvironment env(&argc, &argv, perfit::mpi::ThreadLevel::funneled, false);
  perfit::install_interrupt_handlers(perfit::io::remove_temp_files_now);
  CLI::App app{
      "perfit: fit performance models of distributed deep-learning training to measured "
      "times.\nData lives in HDF5 stores (docs/hdf5-format.md). Exit codes: 0 ok, 1 internal, "
      "2 bad option/config, 3 bad data, 4 HDF5 failure, 5 MPI failure, 6 file I/O."};
  app.require_subcommand(1);
  app.fallthrough();  // --log-level also after the subcommand
  app.set_version_flag("--version",
                       std::string(perfit::version()) + " (git " + perfit::git_revision() + ")");
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off")
      ->capture_default_str();

  perfit::app::Action action;
  perfit::app::add_fit_command(app, action, env);
  perfit::app::add_batch_command(app, action, env);
  perfit::app::add_validate_command(app, action, env);
  perfit::app::add_select_command(app, action, env);
  perfit::app::add_predict_command(app, action);
  perfit::app::add_explain_command(app, action);
  perfit::app::add_recommend_command(app, action);
  perfit::app::add_pingpong_command(app, action, env);
  perfit::app::add_show_command(app, action);
  perfit::app::add_report_command(app, action);
  perfit::app::add_import_command(app, action);
  perfit::app::add_inspect_command(app, action);
  perfit::app::add_models_command(app, action);
  perfit::app::add_synth_command(app, action);

  perfit::job::remember_command_line(argc, argv);
  const bool speaks = perfit::mpi::MpiEnvironment::launcher_rank() == 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return speaks ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    // Every rank sees the same command line: rank 0 alone says what is wrong.
    if (speaks) {
      std::fprintf(stderr, "perfit: error: %s (see perfit --help)\n", one_line(e.what()).c_str());
    }
    return 2;
  }
  try {
    env.start(action.threads);
  } catch (const perfit::Error& e) {
    std::fprintf(stderr, "perfit: error: %s\n", e.what());
    return e.exit_code();
  }
  const bool parallel = env.initialized() && env.size() > 1;
  // Under MPI a failing rank ends the whole job (MPI_Abort with the error's exit code):
  // a Slurm job then fails fast instead of hanging in the next collective.
  const std::string who = parallel ? " (rank " + std::to_string(env.rank()) + ")" : "";
  try {
    perfit::init_logging(env.rank(), perfit::parse_log_level(log_level));
    return action.run();
  } catch (const perfit::AgreedError& e) {
    if (e.print()) std::fprintf(stderr, "perfit: error%s: %s\n", who.c_str(), e.what());
    return e.exit_code();
  } catch (const perfit::Error& e) {
    std::fprintf(stderr, "perfit: error%s: %s\n", who.c_str(), e.what());
    if (parallel) perfit::mpi::abort_all(e.exit_code());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfit: internal error%s: %s\n", who.c_str(), e.what());
    if (parallel) perfit::mpi::abort_all(1);
    return 1;
  }
}
