#include "perfit/io/csv_chunks.hpp"

#include <algorithm>

#include "csv_parse.hpp"
#include "perfit/core/error.hpp"

namespace perfit::io {

namespace {

std::unique_ptr<std::ifstream> open_csv(const std::string& path) {
  auto in = std::make_unique<std::ifstream>(path);
  if (!*in) throw IoError("cannot open CSV '" + path + "' for reading (missing or no permission)");
  return in;
}

}  // namespace

CsvChunks::CsvChunks(std::string path, CsvOptions options, CsvWatch watch)
    : path_(std::move(path)), options_(std::move(options)) {
  options_.keep_text = false;
  auto in = open_csv(path_);
  header_ = detail::read_header(*in, path_, options_, line_no_);
  typed_ = detail::make_builders(header_, options_, path_, line_no_);
  for (auto& b : typed_) {
    b.keep = false;
    if (b.name == watch.column) {
      b.watch = &watched_;
      b.watch_work = watch.work;
    }
  }
  while (auto fields = detail::next_row(*in, path_, options_.delimiter, header_.size(), line_no_)) {
    for (std::size_t i = 0; i < header_.size(); ++i)
      typed_[i].add(fields->text[i], fields->quoted[i], line_no_, path_);
    ++rows_;
  }
  if (rows_ == 0) throw DataError("'" + path_ + "' has a header but no data rows");
  for (const auto& c : typed_) {
    if (c.numeric() && c.empties > 0) empty_.push_back({c.name, c.empties, c.first_empty_line});
  }
}

CsvChunks::~CsvChunks() = default;

std::optional<data::ColumnType> CsvChunks::type(const std::string& column) const {
  for (const auto& b : typed_) {
    if (b.name != column) continue;
    switch (b.kind) {
      case detail::Builder::Kind::int64:
        return data::ColumnType::int64;
      case detail::Builder::Kind::text:
        return data::ColumnType::string;
      default:
        return data::ColumnType::float64;
    }
  }
  return std::nullopt;
}

std::string CsvChunks::first_text(const std::string& column) const {
  for (const auto& b : typed_)
    if (b.name == column) return b.first_text;
  return {};
}

CsvTable CsvChunks::next(std::size_t n) {
  if (!in_) {
    in_ = open_csv(path_);
    line_no_ = 0;
    detail::read_header(*in_, path_, options_, line_no_);
  }
  // Each column starts as the whole file's type: a column whose first chunk holds integers
  // and a later one decimals is a float column in every chunk, as in read_csv.
  std::vector<detail::Builder> cols(typed_.size());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    cols[i].name = typed_[i].name;
    cols[i].forced_text = typed_[i].forced_text;
    cols[i].suggest_categorical = typed_[i].suggest_categorical;
    cols[i].kind = typed_[i].kind;
  }
  CsvTable out;
  while (out.line_of_row.size() < n) {
    auto fields = detail::next_row(*in_, path_, options_.delimiter, header_.size(), line_no_);
    if (!fields) break;
    for (std::size_t i = 0; i < cols.size(); ++i)
      cols[i].add(fields->text[i], fields->quoted[i], line_no_, path_);
    out.line_of_row.push_back(line_no_);
  }
  given_ += out.line_of_row.size();
  if (given_ > rows_ || (out.line_of_row.size() < n && given_ != rows_)) {
    throw DataError("'" + path_ + "' changed while it was read: " + std::to_string(rows_) +
                    " rows the first time, " + std::to_string(given_) +
                    (given_ > rows_ ? " or more" : "") + " the second; import it again");
  }
  for (auto& c : cols) out.table.add_column(c.finish(out.line_of_row.size()));
  return out;
}

}  // namespace perfit::io
