// The options that many subcommands share (--json, --force, --out), spelt and documented once,
// and the registration of a subcommand from its option table, whose work main() runs after
// parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <concepts>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_flags.hpp"
#include "perfit/core/option_table.hpp"

namespace perfit::app {

// --json: `what` is printed on stdout instead of the human-readable table.
template <class S, class Get>
Option<S> json_option(Get get,
                      const std::string& what = "one JSON object on stdout instead of the table") {
  return bool_option<S>("json", get, "print " + what);
}

// --force: replace an existing output of the same kind. An input, or a file of another kind,
// is never replaced (io/output_guard.hpp), with or without it.
template <class S, class Get>
Option<S> force_option(Get get, const std::string& what) {
  return bool_option<S>("force", get, what);
}

// --out: the file or directory the command writes.
template <class S, class Get>
Option<S> out_option(Get get, const std::string& what) {
  return text_option<S>("out", get, "a path", what);
}

// --set of the commands that read a result: which set's winner, when the result is a selection
// store (DIR/selection.h5 of `select --set GLOB --out DIR`, of a batch's `select:` entry).
template <class S, class Get>
Option<S> winner_set_option(Get get) {
  return text_option<S>("set", get, "a set path",
                        "with a selection store (DIR/selection.h5): the set whose winner to read");
}

// --interval LEVEL of the commands that predict (fit/predictive.hpp: what it holds is said with
// it).
template <class S, class Get>
Option<S> interval_option(Get get) {
  return real_option<S>(
      "interval", get, 0.0, 0.999,
      "a prediction interval at this level (e.g. 0.9) for what a run will measure: noise, the "
      "constants and, for select's choice beyond the measured range, the choice (0: the bootstrap "
      "refits' percentile interval when the fit has them; docs/analysis.md)");
}

// A subcommand whose options are `table` (set on *args, whose initial values are the defaults
// shown in --help) and whose work is run(*args): chosen on the command line, it leaves that
// work in `action` for main() to run once parsing is over, so that a bad value is reported
// like every other error. Cmd is Args or a command's arguments built on a lower layer's Args;
// `threads`: the MPI thread level the work needs.
template <class Args, class Cmd, class Run>
requires std::derived_from<Cmd, Args> CLI::App* add_command(
    CLI::App& app, Action& action, const std::string& name, const std::string& help,
    std::shared_ptr<Cmd> args, const OptionTable<Args>& table, Run run,
    mpi::ThreadLevel threads = mpi::ThreadLevel::funneled) {
  CLI::App* cmd = app.add_subcommand(name, help);
  auto flags = std::make_shared<OptionFlags<Args>>();
  flags->add(cmd, table, *args);
  cmd->callback([args, flags, run, threads, &action] {
    action.run = [args, flags, run] {
      flags->apply(*args);
      return run(*args);
    };
    action.threads = threads;
  });
  return cmd;
}

}  // namespace perfit::app
