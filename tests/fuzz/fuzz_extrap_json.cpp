// Extra-P's JSON input (`perfit import --format extrap` on a .json file): the whole input is the
// file.
#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/extrap_json_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)perfit::io::read_extrap_json(perfit::fuzz::write_input("in.json", data, size));
  } catch (const perfit::Error&) {
  }
  return 0;
}
