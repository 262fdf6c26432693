// A compiled expression: a straight-line list of instructions over slots. Each instruction
// is classified by what it varies with, and that decides where the evaluator computes it:
//   none  - a constant, folded at compile time
//   param - one scalar per candidate (e.g. exp(c2)), computed once per candidate
//   data  - one value per row, the same for every candidate (e.g. d/(b*p), log(b)),
//           computed once per block of rows and shared by the whole population
//   both  - per row and per candidate: the only work inside the candidate loop
// Products and sums are regrouped so that data-only and param-only factors meet first
// (c3*iterations*log2(p) costs one multiply per row and candidate, not two). Identical
// subexpressions share one slot.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "perfit/model/expression.hpp"

namespace perfit::model {

enum class OpCode : std::uint8_t {
  constant,
  param,
  column,
  neg,
  add,
  sub,
  mul,
  div,
  pow,
  min,
  max,
  log,
  log2,
  exp,
  sqrt,
  abs,
  ceil,
  floor,
  square,
  cube,
  inv,
  powlog,  // a^... given b = log(base): exp(a*b), and 1 where a == 0 (x^0 = 1 even at x = 0)
  lincomb  // sum of Tape::terms[index .. index+count): one pass, one store per row
};
enum class Varies : std::uint8_t { none = 0, param = 1, data = 2, both = 3 };

inline Varies combine(Varies a, Varies b) {
  return static_cast<Varies>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
inline bool is_vector(Varies v) { return v == Varies::data || v == Varies::both; }

struct Instr {
  OpCode op = OpCode::constant;
  Varies varies = Varies::none;
  std::int32_t a = -1, b = -1;  // operand slots
  std::int32_t index = -1;      // param or column index; first term of a lincomb
  std::int32_t count = 0;       // terms of a lincomb
  double value = 0.0;           // constant
};

// One term of a lincomb: coef * scalar * v1 * v2 * exp(exp_scalar * exp_log), where the
// fields are slots and -1 means "absent" (a factor of 1; a term of scalars only is an offset).
// The exp factor is a column raised to a fitted power (b^g) with its log shared per block.
struct LinTerm {
  double coef = 1.0;
  std::int32_t scalar = -1, v1 = -1, v2 = -1;
  std::int32_t exp_scalar = -1, exp_log = -1;
};

// Sums of products are where the store traffic of an interpreter goes; a lincomb evaluates
// c0 + c2*D1 + c3*D2 + c1*D3*W in registers. At most kMaxLinTerms terms per instruction.
inline constexpr std::size_t kMaxLinTerms = 16;

struct Tape {
  std::vector<Instr> code;  // slot i = code[i]; operands always precede their use
  std::vector<LinTerm> terms;
  std::int32_t result = -1;
};

// What an identifier means to the compiler.
struct Binding {
  enum class Kind { param, column, constant, term, unknown } kind = Kind::unknown;
  std::int32_t index = -1;  // param or column index
  double value = 0.0;       // constant
  ExprPtr term;             // named sub-expression, inlined
};
using Resolver = std::function<Binding(const std::string& name)>;

// Compiles e; identifiers resolved through `resolve`. Precondition: every identifier resolves
// (the Model checks and reports unknown ones) and terms are acyclic.
Tape compile(const ExprPtr& e, const Resolver& resolve);

// Scalar evaluation of one instruction (used for param-class slots and in tests).
double apply_scalar(OpCode op, double a, double b);

}  // namespace perfit::model
