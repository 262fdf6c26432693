// Fit config YAML: applied on top of the defaults or refused with a ConfigError; a config
// that loads must save to YAML that loads back to the same YAML (the saved config of every
// result file is read back by --resume and `perfit show`).
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/fit/run_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace perfit;
  fit::RunConfig cfg;
  try {
    fit::apply_run_config_yaml(std::string(fuzz::as_text(data, size)), "fuzz.yaml", cfg);
  } catch (const Error&) {
    return 0;
  }
  const std::string saved = fit::run_config_to_yaml(cfg);
  fit::RunConfig again;
  try {
    fit::apply_run_config_yaml(saved, "saved.yaml", again);
  } catch (const Error& e) {
    std::fprintf(stderr, "a loaded config saved to YAML that does not load: %s\n%s\n", e.what(),
                 saved.c_str());
    std::abort();
  }
  if (fit::run_config_to_yaml(again) != saved) {
    std::fprintf(stderr, "config YAML does not round-trip:\n%s\n---\n%s\n", saved.c_str(),
                 fit::run_config_to_yaml(again).c_str());
    std::abort();
  }
  return 0;
}
