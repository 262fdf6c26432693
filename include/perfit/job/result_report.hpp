// How a fit's result reads on the terminal and as JSON. `perfit fit` prints it after fitting
// and `perfit show` prints it again from the result file, through these same two functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfit/io/result_file.hpp"

namespace perfit::job {

void print_result_table(const io::ResultFile& r);
// The same table as text (the Python package's Fit.report()).
std::string result_table_text(const io::ResultFile& r);
// The table, then every scalar field of the result with what it means (`perfit show --full`).
void print_full_report(const io::ResultFile& r);
// The object `perfit fit --json` prints; `path` is the result file.
nlohmann::ordered_json result_json(const io::ResultFile& r, const std::string& path);
// The constants at a bound that the data press on (moved past it, the cost falls by more than
// 2/rows and 0.1%): the model cannot follow the data there.
std::vector<std::string> pressed_bounds(const io::ResultFile& r);

}  // namespace perfit::job
