#include "perfit/io/csv_reader.hpp"

#include <fstream>

#include "csv_parse.hpp"
#include "perfit/core/error.hpp"

namespace perfit::io {

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot open CSV '" + path + "' for reading (missing or no permission)");
  std::size_t line_no = 0;
  const std::vector<std::string> header = detail::read_header(in, path, options, line_no);
  std::vector<detail::Builder> cols = detail::make_builders(header, options, path, line_no);
  CsvTable out;
  while (auto fields = detail::next_row(in, path, options.delimiter, header.size(), line_no)) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      cols[i].add(fields->text[i], fields->quoted[i], line_no, path);
    }
    out.line_of_row.push_back(line_no);
    if (options.keep_text) out.text.push_back(std::move(fields->text));
  }
  if (out.line_of_row.empty()) {
    throw DataError("'" + path + "' has a header but no data rows");
  }
  for (auto& c : cols) {
    if (c.numeric() && c.empties > 0) out.empty.push_back({c.name, c.empties, c.first_empty_line});
    out.table.add_column(c.finish(out.line_of_row.size()));
  }
  return out;
}

}  // namespace perfit::io
