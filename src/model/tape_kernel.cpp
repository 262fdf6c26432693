#include "tape_kernel.hpp"

#include <algorithm>
#include <cmath>

#include "perfit/core/assert.hpp"

namespace perfit::model::detail {

using CMap = Eigen::Map<const Eigen::ArrayXd>;
using Map = Eigen::Map<Eigen::ArrayXd>;

TapeKernel::TapeKernel(const Tape& tape)
    : code_(tape.code), terms_(tape.terms), result_(tape.result) {
  buffer_of_.assign(code_.size(), -1);
  for (std::size_t i = 0; i < code_.size(); ++i) {
    const Instr& in = code_[i];
    const auto slot = static_cast<std::int32_t>(i);
    if (!is_vector(in.varies)) {
      scalar_slots_.push_back(slot);
    } else if (in.op != OpCode::column) {  // columns are read in place, no buffer
      buffer_of_[i] = static_cast<std::int32_t>(n_buffers_++);
      (in.varies == Varies::data ? data_slots_ : both_slots_).push_back(slot);
    }
  }
}

void TapeKernel::scalars(const Eigen::Ref<const Eigen::MatrixXd>& pop,
                         std::vector<double>& scal) const {
  const std::size_t n = static_cast<std::size_t>(pop.cols());
  scal.assign(n * code_.size(), 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    double* sc = scal.data() + j * code_.size();
    for (const std::int32_t s : scalar_slots_) {
      const Instr& in = code_[s];
      switch (in.op) {
        case OpCode::constant:
          sc[s] = in.value;
          break;
        case OpCode::param:
          sc[s] = pop(in.index, static_cast<Eigen::Index>(j));
          break;
        default:
          sc[s] = apply_scalar(in.op, in.a >= 0 ? sc[in.a] : 0.0, in.b >= 0 ? sc[in.b] : 0.0);
      }
    }
  }
}

TapeKernel::Operand TapeKernel::operand(std::int32_t slot, const double* const* cols,
                                        std::size_t begin, std::size_t block, const double* sc,
                                        const double* scratch) const {
  const Instr& in = code_[slot];
  if (in.op == OpCode::column) return {cols[in.index] + begin, 0.0};
  if (buffer_of_[slot] >= 0)
    return {scratch + static_cast<std::size_t>(buffer_of_[slot]) * block, 0.0};
  if (in.op == OpCode::constant) return {nullptr, in.value};
  PERFIT_ASSERT(sc != nullptr, "param operand in a data-only instruction");
  return {nullptr, sc[slot]};
}

// Vector-vector, vector-scalar and scalar-vector forms of a binary op; x and y are the
// operands as Eigen arrays or doubles. Eigen vectorises log/exp/sqrt without -ffast-math,
// so NaN and inf still propagate to the cost.
#define PERFIT_BINARY(VV, VS, SV)          \
  if (A.vec && B.vec) {                    \
    const CMap x(A.vec, ni), y(B.vec, ni); \
    o = VV;                                \
  } else if (A.vec) {                      \
    const CMap x(A.vec, ni);               \
    const double y = B.s;                  \
    o = VS;                                \
  } else {                                 \
    const double x = A.s;                  \
    const CMap y(B.vec, ni);               \
    o = SV;                                \
  }

void TapeKernel::exec(std::int32_t slot, const Rows& at, const double* sc, double* scratch) const {
  const double* const* cols = at.cols;
  const std::size_t begin = at.begin, n = at.n, block = at.block;
  const Instr& in = code_[slot];
  const auto ni = static_cast<Eigen::Index>(n);
  double* out = scratch + static_cast<std::size_t>(buffer_of_[slot]) * block;
  if (in.op == OpCode::lincomb) {
    LinResolved r[kMaxLinTerms];
    std::size_t nr = 0;
    const double offset = resolve(in, at, sc, scratch, r, nr);
    StoreValues store{out};
    lincomb_rows(r, nr, offset, n, store);
    return;
  }
  Map o(out, ni);
  const Operand A = operand(in.a, cols, begin, block, sc, scratch);
  const Operand B =
      in.b >= 0 ? operand(in.b, cols, begin, block, sc, scratch) : Operand{nullptr, 0};
  if (in.b < 0) {
    PERFIT_ASSERT(A.vec != nullptr, "unary vector op on a scalar operand");
    const CMap x(A.vec, ni);
    switch (in.op) {
      case OpCode::neg:
        o = -x;
        return;
      case OpCode::log:
        o = x.log();
        return;
      case OpCode::log2:
        o = x.log() * M_LOG2E;
        return;
      case OpCode::exp:
        o = x.exp();
        return;
      case OpCode::sqrt:
        o = x.sqrt();
        return;
      case OpCode::abs:
        o = x.abs();
        return;
      case OpCode::ceil:
        o = x.ceil();
        return;
      case OpCode::floor:
        o = x.floor();
        return;
      case OpCode::square:
        o = x.square();
        return;
      case OpCode::cube:
        o = x.cube();
        return;
      case OpCode::inv:
        o = x.inverse();
        return;
      default:
        break;
    }
    PERFIT_ASSERT(false, "unknown unary opcode");
  }
  switch (in.op) {
    case OpCode::add:
      PERFIT_BINARY(x + y, x + y, x + y) return;
    case OpCode::sub:
      PERFIT_BINARY(x - y, x - y, x - y) return;
    case OpCode::mul:
      PERFIT_BINARY(x * y, x * y, x * y) return;
    case OpCode::div:
      PERFIT_BINARY(x / y, x / y, x * y.inverse()) return;
    case OpCode::min:
      PERFIT_BINARY(x.min(y), x.min(y), y.min(x)) return;
    case OpCode::max:
      PERFIT_BINARY(x.max(y), x.max(y), y.max(x)) return;
    case OpCode::pow:
      PERFIT_BINARY(x.pow(y), x.pow(y), Eigen::pow(x, y)) return;
    case OpCode::powlog:  // x: exponent, y: log of the base
      if (!A.vec && A.s == 0.0) {
        o.setOnes();
        return;
      }
      PERFIT_BINARY((x == 0.0).select(1.0, (x * y).exp()), (x * y).exp(), (x * y).exp()) return;
    default:
      break;
  }
  PERFIT_ASSERT(false, "unknown binary opcode");
}

#undef PERFIT_BINARY

double TapeKernel::resolve(const Instr& in, const Rows& at, const double* sc, const double* scratch,
                           LinResolved* r, std::size_t& nr) const {
  const double* const* cols = at.cols;
  const std::size_t begin = at.begin, block = at.block;
  auto vec = [&](std::int32_t slot, LinResolved& x) -> const double* {
    if (slot < 0) return nullptr;
    const Operand o = operand(slot, cols, begin, block, sc, scratch);
    if (!o.vec) x.s *= o.s;
    if (o.vec && at.spans && code_[slot].op == OpCode::column) {
      const RowSpan& span = at.spans[code_[slot].index];
      x.lo = std::max(x.lo, span.first > begin ? span.first - begin : 0);
      x.hi = std::min(x.hi, span.second > begin ? span.second - begin : 0);
    }
    return o.vec;
  };
  double offset = 0.0;
  nr = 0;
  for (std::int32_t k = 0; k < in.count; ++k) {
    const LinTerm& t = terms_[static_cast<std::size_t>(in.index + k)];
    LinResolved x;
    x.s = t.coef;
    if (t.scalar >= 0) x.s *= operand(t.scalar, cols, begin, block, sc, scratch).s;
    x.v1 = vec(t.v1, x);
    x.v2 = vec(t.v2, x);
    if (x.lo >= std::min(x.hi, at.n)) continue;  // a column that is 0 on every row of the block
    if (t.exp_log >= 0) {
      x.t = operand(t.exp_scalar, cols, begin, block, sc, scratch).s;
      // x^0 = 1 even where x = 0 (log = -inf): drop the factor rather than compute exp(NaN).
      if (x.t != 0.0) {
        const Operand l = operand(t.exp_log, cols, begin, block, sc, scratch);
        if (l.vec) {
          x.log = l.vec;
        } else {
          x.s *= std::exp(x.t * l.s);
        }
      }
    }
    if (!x.v1 && !x.v2 && !x.log) {
      offset += x.s;
      continue;
    }
    r[nr++] = x;
  }
  return offset;
}

const double* TapeKernel::result_pointer(const double* const* cols, std::size_t begin,
                                         std::size_t n, std::size_t block, const double* sc,
                                         double* scratch) const {
  const Operand r = operand(result_, cols, begin, block, sc, scratch);
  if (r.vec) return r.vec;
  // A model without columns predicts one value for every row.
  double* out = scratch + n_buffers_ * block;
  std::fill(out, out + n, r.s);
  return out;
}

}  // namespace perfit::model::detail
