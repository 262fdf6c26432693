#include <iostream>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/io/result_file.hpp"
#include "result_report.hpp"

namespace perfit::app {

namespace {

struct ShowArgs {
  std::string result;
  bool json = false, full = false;
};

int run_show(ShowArgs& a) {
  const io::ResultFile r = io::read_result_file(a.result);
  if (a.json) {
    std::cout << result_json(r, a.result).dump(2) << "\n";
  } else if (a.full) {
    print_full_report(r);
  } else {
    print_result_table(r);
  }
  return 0;
}

}  // namespace

void add_show_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ShowArgs>();
  auto* cmd = add_command(app, action, "show",
                          "Print a saved fit result again: the table `perfit fit` printed, with --full\n"
                          "every field the result holds, or with --json the same object `perfit fit\n"
                          "--json` printed.",
                          a, run_show);
  cmd->add_option("result", a->result, "result file written by perfit fit")->required();
  add_json_flag(cmd, a->json);
  cmd->add_flag("--full", a->full, "after the table, every field of the result with what it means");
}

}  // namespace perfit::app
