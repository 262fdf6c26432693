#include <iostream>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/job/result_report.hpp"

namespace perfit::app {

namespace {

struct ShowArgs {
  std::string set;  // --set: a selection store's winner
  std::string result;
  bool json = false, full = false;
};

int run_show(ShowArgs& a) {
  const io::ResultFile r = io::read_result(a.result, a.set);
  if (a.json) {
    std::cout << job::result_json(r, a.result).dump(2) << "\n";
  } else if (a.full) {
    job::print_full_report(r);
  } else {
    job::print_result_table(r);
  }
  return 0;
}

const OptionTable<ShowArgs>& show_options() {
  using A = ShowArgs;
  static const OptionTable<A> t = {
      required(positional(text_option<A>("result", &A::result, "a result file",
                                         "result file written by perfit fit"))),
      winner_set_option<A>(&A::set),
      json_option<A>(&A::json),
      bool_option<A>("full", &A::full,
                     "after the table, every field of the result with what it means"),
  };
  return t;
}

}  // namespace

void add_show_command(CLI::App& app, Action& action) {
  add_command(app, action, "show",
              "Print a saved fit result again: the table `perfit fit` printed, with --full\n"
              "every field the result holds, or with --json the same object `perfit fit\n"
              "--json` printed.",
              std::make_shared<ShowArgs>(), show_options(), run_show);
}

}  // namespace perfit::app
