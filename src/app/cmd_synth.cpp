#include <chrono>
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/synth_store.hpp"

namespace perfit::app {

namespace {
struct SynthArgs {
  std::string out;
  double rows = 100000;
  std::uint64_t seed = 1;
  double noise = 0.02;
  std::vector<std::string> sets;
};
}  // namespace

void add_synth_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<SynthArgs>();
  auto* cmd = app.add_subcommand(
      "synth",
      "Write synthetic measurement sets (3 frameworks x 3 DL models) generated from the\n"
      "`generic` model with known constants (stored as truth_* attributes) and log-normal noise.");
  cmd->add_option("--out", a->out, "HDF5 store to write (replaced if it exists)")->required();
  cmd->add_option("--rows", a->rows, "rows per set (1e7 allowed)")->capture_default_str();
  cmd->add_option("--seed", a->seed, "random seed; same seed, same data")->capture_default_str();
  cmd->add_option("--noise", a->noise, "sigma of the multiplicative log-normal noise")
      ->capture_default_str();
  cmd->add_option("--set", a->sets, "write only these sets (repeatable), e.g. /pytorch/resnet50");
  cmd->callback([a, &action] {
    action = [a] {
      if (!(a->rows >= 1) || a->rows != std::floor(a->rows) || a->rows > 1e12) {
        throw ConfigError("--rows must be a whole number >= 1, got " + std::to_string(a->rows));
      }
      data::SynthOptions o;
      o.rows = static_cast<std::size_t>(a->rows);
      o.seed = a->seed;
      o.noise = a->noise;
      const auto t0 = std::chrono::steady_clock::now();
      const io::SynthStoreSummary s = io::write_synthetic_store(a->out, o, a->sets);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("wrote %zu sets, %zu rows to '%s' in %.2f s (%.3g rows/s; seed %llu, noise %g)\n",
                  s.sets.size(), s.rows, a->out.c_str(), secs, s.rows / std::max(secs, 1e-9),
                  static_cast<unsigned long long>(o.seed), o.noise);
      return 0;
    };
  });
}

}  // namespace perfit::app
