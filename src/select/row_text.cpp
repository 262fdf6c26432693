#include "perfit/select/row_text.hpp"

#include <iterator>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"

namespace perfit::select {

namespace {

constexpr std::uint64_t kRowTextVersion = 0x7065726669740201ULL;  // "perfit" + row layout 1
constexpr const char* kWhat = "a selection row's text";

std::string field_of(const JsonRow& r, const char* key) {
  const auto it = r.find(key);
  return it == r.end() ? std::string() : csv_field(*it);
}

}  // namespace

std::string csv_field(const JsonRow& v) {
  if (v.is_null()) return "";
  if (v.is_number()) return v.dump();
  const auto& s = v.get_ref<const std::string&>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string render_row(const JsonRow& row) {
  data::WireWriter out;
  out.count(kRowTextVersion);
  out.text(row.value("status", ""));
  out.text(row_json_text(row));
  for (const char* f : kCsvFixed) out.text(field_of(row, f));
  const auto metrics = row.find("metrics");
  for (const char* m : kCsvMetrics)
    out.text(metrics == row.end() ? std::string() : field_of(*metrics, m));
  if (const auto k = row.find("constants"); k != row.end()) {
    out.count(k->size());
    for (const auto& [name, value] : k->items()) {
      out.text(name);
      out.text(csv_field(value));
    }
  } else {
    out.count(0);
  }
  out.text(field_of(row, "message"));
  out.count((row.contains("callpath") ? 1U : 0U) | (row.contains("result_file") ? 2U : 0U));
  return out.take();
}

RowText read_row_text(std::string_view bytes) {
  data::WireReader in(bytes, kWhat);
  if (in.count() != kRowTextVersion)
    throw DataError("a selection row's text is not one this perfit writes (layout version)");
  RowText t;
  t.status = in.text_view();
  t.json = in.text_view();
  t.fixed.reserve(std::size(kCsvFixed));
  for (std::size_t k = 0; k < std::size(kCsvFixed); ++k) t.fixed.push_back(in.text_view());
  t.metrics.reserve(std::size(kCsvMetrics));
  for (std::size_t k = 0; k < std::size(kCsvMetrics); ++k) t.metrics.push_back(in.text_view());
  for (std::uint64_t n = in.elements(2 * sizeof(std::uint64_t)); n > 0; --n) {
    const std::string_view name = in.text_view();
    t.constants.emplace_back(name, in.text_view());
  }
  t.message = in.text_view();
  const std::uint64_t flags = in.count();
  t.callpath = (flags & 1U) != 0;
  t.result_file = (flags & 2U) != 0;
  if (!in.done()) throw DataError("a selection row's text is malformed (bytes after its end)");
  return t;
}

}  // namespace perfit::select
