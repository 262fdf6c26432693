// selection.json (a selection's rows beside its store), written and read one row at a time: a
// selection over 10^6 sets writes 600 MB of it, which as one parsed document took 7 GB.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace perfit::select {

using JsonRow = nlohmann::ordered_json;

// Writes `about`'s fields as JsonRow(about).dump(2) would print them, then a "rows" array of
// one row per line: at 10^6 sets, rows printed by dump(2) were 616 MB, 175 MB of it spacing,
// written, journaled and copied at the end that every rank waits for; and one row per line is
// what grep finds whole.
class JsonRowsWriter {
 public:
  JsonRowsWriter(std::ostream& out, const JsonRow& about);
  void add(const JsonRow& row);
  void add_text(std::string_view row_text);  // a row as row_json_text printed it
  void end();                                // closes the array and the document

 private:
  std::ostream& out_;
  std::size_t rows_ = 0;
};

// A row as selection.json prints it: on one line (dump()).
std::string row_json_text(const JsonRow& row);

// Calls each(row) for every object of the document's top-level "rows" array, in order, with
// one row in memory at a time; other fields and rows that are not objects are skipped.
// Returns false if `in` is not JSON (nothing after the first bad byte is read).
bool read_json_rows(std::istream& in, const std::function<void(JsonRow&&)>& each);

}  // namespace perfit::select
