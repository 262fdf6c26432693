// The expression parser: any text is parsed or refused with a ConfigError; what parses can
// be split into terms and listed.
#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/model/expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto e = perfit::model::parse_expression(perfit::fuzz::as_text(data, size));
    (void)perfit::model::additive_terms(e);
    (void)perfit::model::identifiers(e);
  } catch (const perfit::Error&) {
  }
  return 0;
}
