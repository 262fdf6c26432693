#include <iostream>

#include "commands.hpp"
#include "perfit/io/result_file.hpp"
#include "result_report.hpp"

namespace perfit::app {

void add_show_command(CLI::App& app, Action& action) {
  struct ShowArgs {
    std::string result;
    bool json = false;
  };
  auto a = std::make_shared<ShowArgs>();
  auto* cmd = app.add_subcommand(
      "show", "Print a saved fit result again: the table `perfit fit` printed, or with --json the\n"
              "same object `perfit fit --json` printed.");
  cmd->add_option("result", a->result, "result file written by perfit fit")->required();
  cmd->add_flag("--json", a->json, "print one JSON object");
  cmd->callback([a, &action] {
    action = [a] {
      const io::ResultFile r = io::read_result_file(a->result);
      if (a->json) {
        std::cout << result_json(r, a->result).dump(2) << "\n";
      } else {
        print_result_table(r);
      }
      return 0;
    };
  });
}

}  // namespace perfit::app
