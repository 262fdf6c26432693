// The Extra-P text reader (`perfit import --format extrap`): the whole input is the file.
#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/extrap_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)perfit::io::read_extrap_text(perfit::fuzz::write_input("in.txt", data, size));
  } catch (const perfit::Error&) {
  }
  return 0;
}
