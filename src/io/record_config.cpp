#include <algorithm>

#include "perfit/io/winner_record.hpp"  // RecordConfig and what uses it
#include "record_layout.hpp"

namespace perfit::io {

using data::WireReader;
using data::WireTag;
using detail::kConfigKey;
using detail::kWhat;
using detail::open_record;

RecordConfig widen_to_record(std::string_view bytes, std::map<std::string, std::size_t>* widths) {
  WireReader in(bytes, kWhat);
  RecordConfig c;
  // The fields come in the map's order, by name: one walk along it, not a lookup per field
  // (~30 of them per winner on rank 0's serving thread; their compares were 9% of its time).
  auto at = widths != nullptr ? widths->begin() : std::map<std::string, std::size_t>::iterator{};
  for (const auto& [key, field] : open_record(in)) {
    const std::size_t begin = in.position();
    const WireTag t = in.tag();
    if (key == kConfigKey) {
      c.begin = begin;
      if (t == WireTag::text) {
        c.text = in.text_view();
      } else if (t == WireTag::integer) {
        c.named = in.integer();
        if (c.named < 0) throw DataError("a winner's record is malformed (configuration number)");
      } else {
        throw DataError("a winner's record is malformed (configuration)");
      }
      c.end = in.position();
      continue;
    }
    if (t != WireTag::text) {
      in.take(8);
      continue;
    }
    const std::string_view text = in.text_view();
    if (key == "set") c.set = text;
    if (widths == nullptr) continue;
    while (at != widths->end() && at->first < key) ++at;
    if (at == widths->end() || at->first != key) at = widths->emplace_hint(at, key, 0);
    at->second = std::max(at->second, text.size());
    ++at;
  }
  if (c.end == 0) throw DataError("a winner's record is malformed (no configuration)");
  return c;
}

RecordConfig record_config(std::string_view record) { return widen_to_record(record, nullptr); }

void put_record(data::WireWriter& out, std::string_view record, WinnerConfigs& carried) {
  if (record.empty()) {  // a set without a winner
    out.text(record);
    return;
  }
  const RecordConfig c = record_config(record);
  const std::size_t before = carried.entries().size();
  if (!c.text) throw DataError("a winner's record to send names a configuration: not a new one");
  const std::size_t n = carried.add(*c.text, c.set);
  if (carried.entries().size() > before) {  // its first: carried in full
    out.text(record);
    return;
  }
  out.text_parts({record.substr(0, c.begin), config_number(n), record.substr(c.end)});
}

std::string config_number(std::size_t n) {
  data::WireWriter out;
  out.value(static_cast<std::int64_t>(n));
  return out.take();
}

}  // namespace perfit::io
