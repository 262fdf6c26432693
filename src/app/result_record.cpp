#include "result_record.hpp"

#include <algorithm>

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"

namespace perfit::app {

namespace {

constexpr std::uint64_t kRecordVersion = 0x7065726669740101ULL;  // "perfit" + record layout 1

}  // namespace

std::string result_record(const io::ResultFile& r) {
  const io::WinnerParts w = io::winner_parts(r);
  data::WireWriter out;
  out.count(kRecordVersion);
  out.attributes(w.fields);
  out.table(w.params);
  out.table(w.ranges);
  out.numbers(w.history);
  out.numbers(w.metrics);
  return out.take();
}

io::WinnerParts record_parts(const std::string& bytes) {
  data::WireReader in(bytes, "a winner's record");
  if (in.count() != kRecordVersion) throw DataError("a winner's record is not one this perfit writes (layout version)");
  io::WinnerParts w;
  w.fields = in.attributes();
  w.params = in.table();
  w.ranges = in.table();
  w.history = in.numbers();
  w.metrics = in.numbers();
  if (w.metrics.size() != 5 || !in.done()) throw DataError("a winner's record is malformed (metrics)");
  return w;
}

void widen_to_record(const std::string& bytes, std::map<std::string, std::size_t>& widths) {
  data::WireReader in(bytes, "a winner's record");
  if (in.count() != kRecordVersion) throw DataError("a winner's record is not one this perfit writes (layout version)");
  for (std::uint64_t n = in.count(); n > 0; --n) {
    std::string key = in.text();
    const data::AttributeValue v = in.value();
    if (const auto* text = std::get_if<std::string>(&v)) {
      std::size_t& w = widths[std::move(key)];
      w = std::max(w, text->size());
    }
  }
}

io::ResultFile result_from_record(const std::string& bytes) {
  const io::WinnerParts w = record_parts(bytes);
  io::ResultFile r = io::result_from_attributes(w.fields, "a winner's record");
  r.params = io::params_from_table(w.params);
  r.ranges = io::ranges_from_table(w.ranges);
  r.history = w.history;
  r.metrics = {w.metrics[0], w.metrics[1], w.metrics[2], w.metrics[3], w.metrics[4]};
  return r;
}

}  // namespace perfit::app
