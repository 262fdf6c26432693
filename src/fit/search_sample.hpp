// The rows the DE searches on when a set is large: every k-th row, private to the engine. On
// 1e6 distinct rows a search spends ~1,000 evaluations locating the optimum's basin, which a
// strided sample of 65,536 rows locates as well; the polish then converges on every row, so the
// answer is the optimum of the whole set (model/ evaluates; this only chooses and holds rows).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>

#include "perfit/data/measurement_table.hpp"
#include "perfit/model/evaluator.hpp"

namespace perfit::fit::detail {

class SearchSample {
 public:
  // More than 2 x max_rows rows (max_rows 0: never).
  static bool worth(std::size_t rows, std::size_t max_rows) {
    return max_rows > 0 && rows > 2 * max_rows;
  }
  // Every stride-th row of the rows `full` evaluates (their per-row weights kept), at most
  // max_rows of them; `rows` is the table `full` reads. Requires worth(full.rows(), max_rows).
  static SearchSample take(const model::Evaluator& full, const data::MeasurementTable& rows,
                           std::size_t max_rows);

  const model::Evaluator& evaluator() const { return *ev_; }
  std::size_t stride() const { return stride_; }
  std::size_t rows() const { return table_->rows(); }

 private:
  std::unique_ptr<data::MeasurementTable> table_;  // the evaluator reads it: a stable address
  std::unique_ptr<model::Evaluator> ev_;
  std::size_t stride_ = 1;
};

}  // namespace perfit::fit::detail
