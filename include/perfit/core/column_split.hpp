// Processes that each hold every row can share the columns of a Jacobian (one or two model
// evaluations per column): process `part` of `parts` computes the columns k with
// k % parts == part and leaves the others 0, then `share` sums the matrix over the processes.
// Adding zeros is exact, so every process then holds the matrix one process alone computes:
// the same answer bit for bit whatever the number of processes.
#pragma once

#include <cstddef>
#include <functional>

namespace perfit {

struct ColumnSplit {
  int part = 0, parts = 1;
  std::function<void(double* data, std::size_t n)> share;  // a sum over the processes
  bool split() const { return parts > 1; }
  bool mine(std::ptrdiff_t column) const { return !split() || column % parts == part; }
};

}  // namespace perfit
