// Which constants of a model enter it linearly. Most performance expressions are
// c0 + c1*f1(x; g) + c2*f2(x; g) + ...: for fixed values of the few constants inside
// nonlinear functions (exponents such as g), the squared-residual cost is a small bounded
// linear least-squares problem in the others (Golub & Pereyra, variable projection). This file
// finds the split on the expression tree; projection.hpp solves the small problem per
// candidate, so that the DE searches only the nonlinear constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfit/model/model.hpp"
#include "perfit/model/tape.hpp"

namespace perfit::model {

enum class SeparableMode { automatic, off };
SeparableMode parse_separable_mode(
    const std::string& s);  // Throws: ConfigError listing the choices
const char* to_string(SeparableMode m);

// prediction(x) = offset(x; nl) + sum_k params[linear[k]] * basis[k](x; nl), where nl are the
// params in `nonlinear` (the tapes read only those).
struct Separation {
  std::vector<std::size_t> linear;     // param indices, ascending
  std::vector<std::size_t> nonlinear;  // the rest, ascending
  std::vector<Tape> basis;             // one per linear param
  std::optional<Tape> offset;          // the part without linear params; none: 0
  // Per basis, the columns (indices as in the tapes) it is a multiple of: it is 0 on every row
  // where one of them is 0. A joint fit's group constants are multiples of the group's
  // indicator, which is what makes their least-squares problem block diagonal.
  std::vector<std::vector<std::int32_t>> multiple_of;
  bool separable() const { return !linear.empty(); }
};

// The largest set of params, among those with allowed[i] true, in which the expression is
// affine (exhaustive over subsets up to 12 params, preferring log-searched params among sets
// of one size; greedy in param order beyond). A param
// that multiplies another linear one, or sits inside a power, function or denominator,
// is nonlinear.
Separation separate(const Model& m, const std::vector<bool>& allowed);

}  // namespace perfit::model
