// The CSV reader (`perfit import`): the first byte picks the options, the rest is the file. The
// file is also read in chunks (CsvChunks, the import of a large file), whose rows concatenated
// must equal read_csv's table, and which must refuse exactly what read_csv refuses, in the same
// words: a difference aborts (a finding).
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_input.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/csv_chunks.hpp"
#include "perfit/io/csv_reader.hpp"

namespace {

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_csv: read in chunks differs from read at once: %s\n", what);
  std::abort();
}

std::string bits(const perfit::data::Column& c, std::size_t i) {
  if (c.type() == perfit::data::ColumnType::string) return c.str()[i];
  if (c.type() == perfit::data::ColumnType::int64) return std::to_string(c.i64()[i]);
  std::uint64_t b = 0;
  std::memcpy(&b, &c.f64()[i], sizeof b);
  return std::to_string(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace perfit::io;
  if (size == 0) return 0;
  CsvOptions o;
  o.delimiter = (data[0] & 1) ? ';' : ',';
  o.keep_text = (data[0] & 2) != 0;
  if (data[0] & 4) o.categorical = {"framework"};
  const std::size_t chunk = 1 + (data[0] >> 4);
  const std::string path = perfit::fuzz::write_input("in.csv", data + 1, size - 1);
  std::string whole_error, chunks_error;
  CsvTable whole;
  try {
    whole = read_csv(path, o);
  } catch (const perfit::Error& e) {
    whole_error = e.what();
  }
  try {
    CsvChunks chunks(path, o);
    require(chunks.rows() == whole.table.rows(), "rows");
    require(chunks.empty().size() == whole.empty.size(), "empty cells");
    std::size_t row = 0;
    for (CsvTable t = chunks.next(chunk); t.table.rows() > 0; t = chunks.next(chunk)) {
      for (std::size_t c = 0; c < t.table.columns().size(); ++c) {
        const auto& a = whole.table.columns().at(c);
        const auto& b = t.table.columns()[c];
        require(a.name() == b.name() && a.type() == b.type(), "column name or type");
        for (std::size_t i = 0; i < b.size(); ++i) require(bits(a, row + i) == bits(b, i), "value");
      }
      for (std::size_t i = 0; i < t.line_of_row.size(); ++i)
        require(t.line_of_row[i] == whole.line_of_row.at(row + i), "line");
      row += t.table.rows();
    }
    require(row == whole.table.rows(), "rows read again");
  } catch (const perfit::Error& e) {
    chunks_error = e.what();
  }
  require(whole_error == chunks_error, "refusal");
  return 0;
}
