// The CSV reader (`perfit import`): the first byte picks the options, the rest is the file.
#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/csv_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  perfit::io::CsvOptions o;
  o.delimiter = (data[0] & 1) ? ';' : ',';
  o.keep_text = (data[0] & 2) != 0;
  if (data[0] & 4) o.categorical = {"framework"};
  try {
    (void)perfit::io::read_csv(perfit::fuzz::write_input("in.csv", data + 1, size - 1), o);
  } catch (const perfit::Error&) {
  }
  return 0;
}
