#include "perfit/select/selection_json.hpp"

#include <algorithm>
#include <istream>
#include <ostream>
#include <utility>
#include <vector>

namespace perfit::select {

namespace {

// text with every line after the first indented by n spaces: a value dumped at depth n / 2.
std::string indented(const std::string& text, std::size_t n) {
  std::string out;
  out.reserve(text.size() + text.size() / 8 * n);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    out.append(text, at, nl - at);
    if (nl == text.size()) break;
    out.append(1, '\n').append(n, ' ');
    at = nl + 1;
  }
  return out;
}

// nlohmann's SAX events, built into one row at a time: the top object's "rows" array is
// depth 2, its rows open at depth 3.
class RowsSax {
 public:
  explicit RowsSax(const std::function<void(JsonRow&&)>& each) : each_(each) {}

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(JsonRow::number_integer_t v) { return value(v); }
  bool number_unsigned(JsonRow::number_unsigned_t v) { return value(v); }
  bool number_float(JsonRow::number_float_t v, const std::string&) { return value(v); }
  bool string(std::string& v) { return value(std::move(v)); }
  bool binary(JsonRow::binary_t& v) { return value(JsonRow::binary(std::move(v))); }
  bool key(std::string& k) {
    if (depth_ == 1) in_rows_key_ = k == "rows";
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(JsonRow::object()); }
  bool start_array(std::size_t) {
    if (depth_ == 1 && in_rows_key_) in_rows_ = true;
    return open(JsonRow::array());
  }
  bool end_object() { return close(); }
  bool end_array() {
    if (depth_ == 2) in_rows_ = false;
    return close();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  JsonRow* add(JsonRow&& v) {
    JsonRow& parent = *open_.back();
    if (parent.is_object()) return &(parent[key_] = std::move(v));
    parent.push_back(std::move(v));
    return &parent.back();
  }
  template <typename T>
  bool value(T&& v) {
    if (!open_.empty()) add(JsonRow(std::forward<T>(v)));
    return true;
  }
  bool open(JsonRow&& container) {
    ++depth_;
    if (!open_.empty()) {
      open_.push_back(add(std::move(container)));
    } else if (in_rows_ && depth_ == 3 && container.is_object()) {
      row_ = std::move(container);
      open_.push_back(&row_);
    }
    return true;
  }
  bool close() {
    --depth_;
    if (open_.empty()) return true;
    open_.pop_back();
    if (open_.empty()) each_(std::move(row_));
    return true;
  }

  const std::function<void(JsonRow&&)>& each_;
  std::size_t depth_ = 0;
  bool in_rows_key_ = false, in_rows_ = false;
  std::string key_;
  JsonRow row_;
  std::vector<JsonRow*> open_;  // the row's containers open now, innermost last
};

}  // namespace

JsonRowsWriter::JsonRowsWriter(std::ostream& out, const JsonRow& about) : out_(out) {
  out_ << "{";
  for (const auto& [k, v] : about.items())
    out_ << "\n  " << JsonRow(k).dump() << ": " << indented(v.dump(2), 2) << ",";
  out_ << "\n  \"rows\": [";
}

std::string row_json_text(const JsonRow& row) { return row.dump(); }

void JsonRowsWriter::add(const JsonRow& r) { add_text(row_json_text(r)); }

void JsonRowsWriter::add_text(std::string_view row_text) {
  out_ << (rows_++ ? "," : "") << "\n    " << row_text;
}

void JsonRowsWriter::end() { out_ << (rows_ == 0 ? "]" : "\n  ]") << "\n}\n"; }

bool read_json_rows(std::istream& in, const std::function<void(JsonRow&&)>& each) {
  RowsSax sax(each);
  return JsonRow::sax_parse(in, &sax);
}

}  // namespace perfit::select
