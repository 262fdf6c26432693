#include "result_record.hpp"

#include "perfit/core/error.hpp"
#include "perfit/data/wire.hpp"

namespace perfit::app {

namespace {

constexpr std::uint64_t kRecordVersion = 0x7065726669740101ULL;  // "perfit" + record layout 1

}  // namespace

std::string result_record(const io::ResultFile& r) {
  data::WireWriter w;
  w.count(kRecordVersion);
  w.attributes(io::result_attributes(r));
  w.table(io::params_table(r.params, true));
  w.table(io::ranges_table(r.ranges));
  w.numbers(r.history);
  const auto& m = r.metrics;
  w.numbers({m.mape, m.rmse, m.r2, m.gmae, m.max_rel_err});
  return w.take();
}

io::ResultFile result_from_record(const std::string& bytes) {
  data::WireReader in(bytes, "a winner's record");
  if (in.count() != kRecordVersion) throw DataError("a winner's record is not one this perfit writes (layout version)");
  io::ResultFile r = io::result_from_attributes(in.attributes(), "a winner's record");
  r.params = io::params_from_table(in.table());
  r.ranges = io::ranges_from_table(in.table());
  r.history = in.numbers();
  const std::vector<double> m = in.numbers();
  if (m.size() != 5 || !in.done()) throw DataError("a winner's record is malformed (metrics)");
  r.metrics = {m[0], m[1], m[2], m[3], m[4]};
  return r;
}

}  // namespace perfit::app
