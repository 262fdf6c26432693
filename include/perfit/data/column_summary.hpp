// What `perfit inspect` says about a column: range of numbers, count of non-finite values,
// and the distinct values when there are few (grids of p and b, categorical labels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "perfit/data/column.hpp"

namespace perfit::data {

struct ColumnSummary {
  std::string name;
  ColumnType type = ColumnType::float64;
  std::size_t rows = 0;
  double min = 0.0, max = 0.0;  // over finite values (numeric columns)
  std::size_t non_finite = 0;   // NaN and inf (float64)
  std::size_t n_distinct = 0;   // exact up to kMaxDistinct, then "more than"
  bool distinct_truncated = false;
  std::vector<std::string> distinct;  // sorted, at most kMaxDistinct

  static constexpr std::size_t kMaxDistinct = 16;
};

// The summary of a column read a chunk at a time (inspect of a set larger than memory): the
// same as summarize of the whole column.
class ColumnSummarizer {
 public:
  ColumnSummarizer(std::string name, ColumnType type);
  // Precondition: chunk has the summarizer's type.
  void add(const Column& chunk);
  ColumnSummary finish() const;

 private:
  ColumnSummary s_;
  double lo_, hi_;
  std::set<double> reals_;
  std::set<std::int64_t> whole_;
  std::set<std::string> text_;
};

ColumnSummary summarize(const Column& c);

}  // namespace perfit::data
