// The guard against silent extrapolation. A fit keeps the measured range of every factor
// (io::MeasuredRange); predict, explain and recommend mark each point outside it, above or
// below, by how much, and say so in one warning line per command.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

// Each factor column the model reads (over every rank of comm: each may hold a slice of the
// rows), and each factor `factors` fixes to a value.
std::vector<io::MeasuredRange> measured_ranges(const model::Model& m,
                                               const data::MeasurementTable& rows,
                                               const std::string& factors, MPI_Comm comm);

// One factor of one point outside its measured range.
struct Outside {
  std::string factor;
  double value = 0.0;
  double lo = 0.0, hi = 0.0;  // measured
  bool above = false;
  double ratio = 1.0;        // value / hi above, lo / value below (>= 1; inf past 0)
  std::string group;         // a joint fit's: the range is this group's own ("" : every row's)
  std::string text() const;  // "gpus=256 4x above the measured 1..64" ("... pytorch's measured")
};

// [{"factor", "value", "side": "above"|"below", "ratio", "measured": [lo, hi]}], [] inside.
nlohmann::ordered_json outside_json(const std::vector<Outside>& o);

class RangeGuard {
 public:
  // `factors`: what the result's model reads (model::Model::factors); a model that reads none
  // has nothing to extrapolate in, so its empty range is known.
  // A joint fit's result also holds each group's own ranges (named factor@group, as
  // group_ranges makes them): a row of a group is checked against its group's.
  RangeGuard(const io::ResultFile& r, const std::vector<std::string>& factors);
  bool known() const { return known_; }
  // The factors of row i of t (named as the model reads them) outside their range.
  std::vector<Outside> check(const data::MeasurementTable& t, std::size_t row) const;
  // "gpus>4x" / "epochs>90x,batch_per_gpu<2x": the CSV cell ("" inside).
  static std::string cell(const std::vector<Outside>& o);
  // The one warning line of a command (nothing when every point is inside and the range is
  // known): how many of `points` lie outside, and the farthest per factor.
  void warn(const std::vector<std::vector<Outside>>& per_point, const std::string& command) const;
  // That line without printing it ("" when there is nothing to say): the Python package's warning.
  std::string warning(const std::vector<std::vector<Outside>>& per_point,
                      const std::string& command) const;
  const std::vector<io::MeasuredRange>& ranges() const { return ranges_; }

 private:
  std::vector<io::MeasuredRange> ranges_;
  bool known_;
  std::vector<std::string> by_;  // a joint fit's group columns
};

// A joint fit's ranges per group: each factor column of `ranges` over the rows of each group
// (indicator columns of `rows`), named factor@label. Collective over comm.
std::vector<io::MeasuredRange> group_ranges(const model::Model& m,
                                            const data::MeasurementTable& rows,
                                            const std::vector<io::MeasuredRange>& ranges,
                                            const std::vector<std::string>& labels, MPI_Comm comm);

}  // namespace perfit::job
