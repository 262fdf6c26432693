// A selection's summary row as its text files hold it: its lines of selection.json and its
// fields of selection.csv, rendered once, by the rank that made the row. World rank 0 keeps
// and writes the text: parsing every row and printing it again at each write of the files was
// 9 s of the end of a selection over 10^6 sets (a third thread beside the store's two).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfit/select/selection_json.hpp"

namespace perfit::select {

// selection.csv's columns before the metrics; callpath and metric (Extra-P sets) and
// result_file (--result-files) only when some row has them.
inline constexpr const char* kCsvFixed[] = {
    "set",        "callpath", "metric",    "status",          "model",
    "hypothesis", "score",    "runner_up", "runner_up_score", "result_file"};
inline constexpr const char* kCsvMetrics[] = {"mape", "rmse", "r2", "max_rel_err"};

// What a rendered row holds, read in place from its bytes (valid while they are).
struct RowText {
  std::string_view status;
  std::string_view json;                  // the row in selection.json: row_json_text, one line
  std::vector<std::string_view> fixed;    // as kCsvFixed, each a CSV field ("" when absent)
  std::vector<std::string_view> metrics;  // as kCsvMetrics
  std::vector<std::pair<std::string_view, std::string_view>> constants;  // name, CSV field
  std::string_view message;
  bool callpath = false, result_file = false;  // whether the row has them
};

// The row's text as bytes (data/wire.hpp).
std::string render_row(const JsonRow& row);
// Throws: DataError for bytes render_row did not write.
RowText read_row_text(std::string_view bytes);

// A value as one CSV field: quoted when it holds a comma, a quote or a newline.
std::string csv_field(const JsonRow& v);

}  // namespace perfit::select
