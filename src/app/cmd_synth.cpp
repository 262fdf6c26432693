#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_flags.hpp"
#include "option_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/synth_store.hpp"

namespace perfit::app {

namespace {

struct SynthArgs {
  std::string out;
  bool force = false, json = false;
  data::SynthOptions options;
  std::vector<std::string> sets;
  OptionFlags<data::SynthOptions> flags;
};

constexpr std::uint64_t kMaxRows = 1000000000;  // per set: ~50 GB of columns at 1e9

const OptionTable<data::SynthOptions>& synth_option_table() {
  using S = data::SynthOptions;
  static const OptionTable<S> t = {
      whole_option<S>(
          "rows", [](S & o) -> auto& { return o.rows; }, 1, kMaxRows,
          "rows per set (written in chunks: memory stays small)"),
      whole_option<S>(
          "seed", [](S & o) -> auto& { return o.seed; }, 0,
          std::numeric_limits<std::uint64_t>::max(), "random seed; same seed, same data"),
      real_option<S>(
          "noise", [](S & o) -> auto& { return o.noise; }, 0.0, 1.0,
          "sigma of the multiplicative log-normal noise"),
  };
  return t;
}

// The command's options; the generator's are synth_option_table().
const OptionTable<SynthArgs>& synth_args_options() {
  using A = SynthArgs;
  static const OptionTable<A> t = {
      required(out_option<A>(&A::out, "HDF5 store to write")),
      list_option<A>("set", &A::sets, "set paths",
                     "write only these sets (repeatable), e.g. /pytorch/resnet50"),
      force_option<A>(&A::force,
                      "replace an existing store of synthetic sets (a store with imported sets is "
                      "never replaced)"),
      json_option<A>(
          &A::json,
          "{out, sets, rows, seconds, seed, noise} as one JSON object instead of the line"),
  };
  return t;
}

int run_synth(SynthArgs& a) {
  a.flags.apply(a.options);
  io::check_output({a.out, "--out", io::FileKind::synthetic_store, {}, a.force});
  const data::SynthOptions& o = a.options;
  const auto t0 = std::chrono::steady_clock::now();
  const io::SynthStoreSummary s = io::write_synthetic_store(a.out, o, a.sets);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.json) {
    std::cout << nlohmann::ordered_json{{"out", a.out},    {"sets", s.sets}, {"rows", s.rows},
                                        {"seconds", secs}, {"seed", o.seed}, {"noise", o.noise}}
                     .dump()
              << "\n";
    return 0;
  }
  std::printf("wrote %zu sets, %zu rows to '%s' in %.2f s (%.3g rows/s; seed %llu, noise %g)\n",
              s.sets.size(), s.rows, a.out.c_str(), secs, s.rows / std::max(secs, 1e-9),
              static_cast<unsigned long long>(o.seed), o.noise);
  return 0;
}

}  // namespace

void add_synth_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<SynthArgs>();
  auto* cmd = add_command(
      app, action, "synth",
      "Write synthetic measurement sets (3 frameworks x 3 DL models) generated from the\n"
      "`generic` model with known constants (stored as truth_* attributes) and log-normal noise.",
      a, synth_args_options(), run_synth);
  a->flags.add(cmd, synth_option_table(), a->options);
}

}  // namespace perfit::app
