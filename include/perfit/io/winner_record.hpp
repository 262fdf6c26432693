// A selection's winner as bytes (data/wire.hpp): what a rank sends world rank 0, what rank 0
// spills until the end, and what the selection store is written from. Lossless: doubles travel
// as their bits, fields keep their types. Layout: a version, the result's fields
// (result_attributes: their count, then each one's type and value, in the order of their
// names, which this perfit knows and the record does not carry), params_table(r.params, true),
// ranges_table(r.ranges), the history, the five metrics (mape, rmse, r2, gmae, max_rel_err);
// the run configuration's field may name one carried before it (RecordConfig).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/io/group_writer.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/winner_configs.hpp"

namespace perfit {
class WorkerPool;  // core/worker_pool.hpp
}

namespace perfit::io {

std::string winner_record(const ResultFile& r);

// A record's run configuration (~1 KB of its ~2.5): carried in full (text), or naming the n-th
// distinct one (without its set: io/winner_configs.hpp) that records before it carried in full
// in the same run of records: a chunk a rank sends, a selection's journal. A selection runs
// every set of an entry with one configuration, so only each chunk's first winner carries it
// (10^6 winners sent and journaled ~1 GB less).
struct RecordConfig {
  std::size_t begin = 0, end = 0;        // its bytes in the record (type and value)
  std::optional<std::string_view> text;  // carried in full
  std::int64_t named = -1;               // else the number it names
  std::string_view set;                  // the record's set
};
// Throws: DataError for bytes winner_record did not write.
RecordConfig record_config(std::string_view record);

// A record's configuration field naming the n-th: what replaces bytes [begin, end) of one that
// carries it in full.
std::string config_number(std::size_t n);

// Appends `record` (which carries its configuration, or is empty: no winner) to `out` as one
// text: as it is when its configuration is new to `carried` (which learns it), else naming it.
// Throws: as record_config.
void put_record(data::WireWriter& out, std::string_view record, WinnerConfigs& carried);

// The /winners columns of the metrics, in the record's order.
inline constexpr const char* kWinnerMetrics[] = {"metric_mape", "metric_rmse", "metric_r2",
                                                 "metric_gmae", "metric_max_rel_err"};

// widths[field] at least as wide as the record's text of that field (the store's text columns
// are as wide as their longest value: kept as winners arrive, the store is written in one pass).
// Returns the record's configuration, as record_config. Throws: as record_config.
RecordConfig widen_to_record(std::string_view bytes, std::map<std::string, std::size_t>* widths);

// Winners' records decoded straight into the selection store's /winners columns, a block of
// rows at a time and as the datasets hold them (numbers as their 8 bytes, text as wide as its
// column, zero-padded), on several threads: no result, map, table or string per winner.
// Building those was a third of the serial end of a selection over 2*10^5 sets; a string per
// text field, then a padded copy of each, most of what was left of it at 10^6 (~1.5 GB of
// text). The /params, /ranges and /history rows accumulate over the blocks, and the distinct run
// configurations (io/winner_configs.hpp): /winners holds each winner's row of them.
class WinnerColumns {
 public:
  // Record i, as io::WinnerRecords gives it (a view of bytes kept elsewhere or of scratch).
  using Records = std::function<std::string_view(std::size_t i, std::string& scratch)>;
  // widths: each text field's longest value over every winner (widen_to_record); a field it
  // does not name is 0 wide. where: the store, as errors name it. winners: how many there are
  // in all (room is made for their /params, /ranges and /history rows after the first block).
  // named: the configurations records name by number (RecordConfig), in their order.
  WinnerColumns(std::map<std::string, std::size_t> widths, std::string where, std::size_t winners,
                const std::vector<WinnerConfigs::Entry>* named = nullptr);
  // Records [first, first + n) decoded as the block's rows, replacing the block before, on
  // `threads`: record is called from several threads at once, each with a scratch of its own.
  // Throws: DataError for bytes winner_record did not write or a text wider than its width;
  // ConfigError for a winner whose fields (names, types, order) are not the first winner's.
  void decode(std::size_t first, std::size_t n, const Records& record, WorkerPool& threads);
  std::size_t rows() const { return rows_; }
  // The /winners columns: each field (config_yaml as config_index), metric_*,
  // {params,ranges,history}_{first,count}; text as wide as the widths say. Valid after the
  // first decode.
  const std::vector<GroupColumn>& shape() const { return shape_; }
  // The block's columns in shape()'s order, as GroupWriter::write_bytes takes them.
  std::vector<const char*> block() const;
  std::string set(std::size_t row) const;  // the set of the block's row
  data::MeasurementTable take_params();
  data::MeasurementTable take_ranges();
  std::vector<double> take_history() { return std::move(history_); }
  data::MeasurementTable configs() const { return configs_.table(); }  // /configs

 private:
  struct Field {
    std::string name;
    data::Column::Storage values;
  };
  // A run of a block's rows decoded by one thread: their /params, /ranges and /history rows.
  struct Part {
    std::vector<Field> params, ranges;
    std::vector<double> history;
    WinnerConfigs configs;  // config_index of its rows: rows of these, until decode renumbers
    std::vector<std::int64_t> row_of_named;  // configs' row of each named one, -1: not yet
  };
  std::size_t part_row_of(std::int64_t named, Part& part) const;
  void learn(std::string_view record);  // the columns, from the first winner's record
  void decode_one(std::string_view record, std::size_t row, Part& part);
  char* at(std::size_t column, std::size_t row) {
    return bytes_[column].data() + row * row_bytes_[column];
  }

  std::map<std::string, std::size_t> widths_;
  std::string where_;
  std::vector<GroupColumn> shape_;
  std::vector<data::WireTag> tags_;       // the result's fields': the first winner's
  std::vector<std::size_t> row_bytes_;    // each column's bytes a row
  std::vector<std::vector<char>> bytes_;  // each column's rows of the block
  std::size_t winners_, rows_ = 0, fields_ = 0, set_field_ = 0, config_field_ = SIZE_MAX;
  std::vector<Field> params_, ranges_;  // every winner's so far
  std::vector<double> history_;
  WinnerConfigs configs_;  // every winner's so far
  const std::vector<WinnerConfigs::Entry>* named_;
  std::int64_t first_[3] = {0, 0, 0};  // where the next winner's params, ranges, history start
};

}  // namespace perfit::io
