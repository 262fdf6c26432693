// The flags that many subcommands share (--json, --force, --out), spelt and documented once,
// and the registration of a subcommand whose work main() runs after parsing.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "commands.hpp"

namespace perfit::app {

// --json: `what` is printed on stdout instead of the human-readable table.
inline CLI::Option* add_json_flag(CLI::App* cmd, bool& json,
                                  const std::string& what = "one JSON object on stdout instead of the table") {
  return cmd->add_flag("--json", json, "print " + what);
}

// --force: replace an existing output of the same kind. An input, or a file of another kind,
// is never replaced (io/output_guard.hpp), with or without it.
inline CLI::Option* add_force_flag(CLI::App* cmd, bool& force, const std::string& what) {
  return cmd->add_flag("--force", force, what);
}

// --out: the file or directory the command writes.
inline CLI::Option* add_out_option(CLI::App* cmd, std::string& out, const std::string& what) {
  return cmd->add_option("--out", out, what);
}

// A subcommand whose work is run(*args): chosen on the command line, it leaves that work in
// `action` for main() to run once parsing is over.
template <class Args, class Run>
CLI::App* add_command(CLI::App& app, Action& action, const std::string& name, const std::string& help,
                      std::shared_ptr<Args> args, Run run) {
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->callback([args, run, &action] { action = [args, run] { return run(*args); }; });
  return cmd;
}

}  // namespace perfit::app
