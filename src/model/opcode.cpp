#include <cmath>

#include "perfit/core/assert.hpp"
#include "perfit/model/tape.hpp"

namespace perfit::model {

// One definition of what each opcode computes on scalars: the tape kernel's uniform slots and
// the compiler's constant folding both use it, so a folded constant is what evaluating gives.
double apply_scalar(OpCode op, double a, double b) {
  switch (op) {
    case OpCode::neg:
      return -a;
    case OpCode::add:
      return a + b;
    case OpCode::sub:
      return a - b;
    case OpCode::mul:
      return a * b;
    case OpCode::div:
      return a / b;
    case OpCode::pow:
      return std::pow(a, b);
    case OpCode::min:
      return std::fmin(a, b);
    case OpCode::max:
      return std::fmax(a, b);
    case OpCode::log:
      return std::log(a);
    case OpCode::log2:
      return std::log2(a);
    case OpCode::exp:
      return std::exp(a);
    case OpCode::sqrt:
      return std::sqrt(a);
    case OpCode::abs:
      return std::fabs(a);
    case OpCode::ceil:
      return std::ceil(a);
    case OpCode::floor:
      return std::floor(a);
    case OpCode::square:
      return a * a;
    case OpCode::cube:
      return a * a * a;
    case OpCode::inv:
      return 1.0 / a;
    case OpCode::powlog:
      return a == 0.0 ? 1.0 : std::exp(a * b);
    case OpCode::constant:
    case OpCode::param:
    case OpCode::column:
    case OpCode::lincomb:
      break;
  }
  PERFIT_ASSERT(false, "apply_scalar on a leaf or lincomb opcode");
  return 0.0;
}

}  // namespace perfit::model
