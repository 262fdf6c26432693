// Batch manifests, read from a file as `perfit batch --manifest` does.
#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/batch_manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)perfit::io::load_manifest(perfit::fuzz::write_input("manifest.yaml", data, size));
  } catch (const perfit::Error&) {
  }
  return 0;
}
