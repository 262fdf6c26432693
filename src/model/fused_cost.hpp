// The cost of one candidate over a block of rows, folded into the fused lincomb kernel
// (lincomb_kernel.hpp) instead of storing its predictions: one function per residual, with
// and without weights. Private to model/.
#pragma once

#include <cstddef>

#include "perfit/model/cost.hpp"

namespace perfit::model::detail {

struct LinResolved;

// sum_i w_i * residual(value_i, measured_i) over the block's n rows (w null: weights 1), or
// +inf when a value is negative; NaN propagates. inv, y, logy: 1/measured, measured and
// log(measured) at the block's first row.
using FusedCost = double (*)(bool weighted, const LinResolved* r, std::size_t nr, double offset,
                             std::size_t n, const double* inv, const double* y, const double* logy,
                             const double* w);
FusedCost fused_cost_for(Residual residual);

}  // namespace perfit::model::detail
