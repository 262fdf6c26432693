// A selection's winner as bytes (data/wire.hpp): what a rank sends world rank 0, what rank 0
// spills until the end, and what the selection store is written from. Lossless: doubles travel
// as their bits, fields keep their types. Layout: a version, the result's fields
// (result_attributes: their count, then each one's type and value, in the order of their
// names, which this perfit knows and the record does not carry), params_table(r.params, true),
// ranges_table(r.ranges), the history, the five metrics (mape, rmse, r2, gmae, max_rel_err).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/group_writer.hpp"
#include "perfit/io/result_file.hpp"

namespace perfit::io {

std::string winner_record(const ResultFile& r);

// The /winners columns of the metrics, in the record's order.
inline constexpr const char* kWinnerMetrics[] = {"metric_mape", "metric_rmse", "metric_r2",
                                                 "metric_gmae", "metric_max_rel_err"};

// widths[field] at least as wide as the record's text of that field (the store's text columns
// are as wide as their longest value: kept as winners arrive, the store is written in one pass).
// Throws: DataError for bytes winner_record did not write.
void widen_to_record(std::string_view bytes, std::map<std::string, std::size_t>& widths);

// Winners' records decoded straight into the selection store's columns: no result, map or table
// per winner (building those was a third of the serial end of a selection over 2*10^5 sets).
// The /winners rows come out block by block; /params, /ranges and /history accumulate.
class WinnerColumns {
 public:
  // Appends a record's winner. Throws: DataError for bytes winner_record did not write;
  // ConfigError for a winner whose fields (names, types, order) are not the first winner's.
  void add(std::string_view record);
  const std::string& last_set() const;  // the set of the winner added last
  // The /winners columns: each field, metric_*, {params,ranges,history}_{first,count}; text
  // as wide as `widths` says (0 for a field it does not name). Valid after the first add.
  std::vector<GroupColumn> shape(const std::map<std::string, std::size_t>& widths) const;
  data::MeasurementTable take_block();  // the /winners rows since the last take
  data::MeasurementTable take_params();
  data::MeasurementTable take_ranges();
  std::vector<double> take_history() { return std::move(history_); }

 private:
  struct Field {
    std::string name;
    data::Column::Storage values;
  };
  std::vector<Field> fields_, params_, ranges_;  // fields_: the block's; the others: every winner's
  std::vector<double> history_;
  std::size_t set_field_ = 0;
  std::int64_t first_[3] = {0, 0, 0};  // where the next winner's params, ranges, history start
};

}  // namespace perfit::io
