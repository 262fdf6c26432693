#include "perfit/model/tape.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace perfit::model {

// Columns p, b, d; params c0..c3.
Binding bind(const std::string& n) {
  Binding b;
  if (n[0] == 'c') {
    b.kind = Binding::Kind::param;
    b.index = n[1] - '0';
  } else {
    b.kind = Binding::Kind::column;
    b.index = n == "p" ? 0 : (n == "b" ? 1 : 2);
  }
  return b;
}

std::size_t count(const Tape& t, Varies v) {
  return static_cast<std::size_t>(
      std::count_if(t.code.begin(), t.code.end(), [&](const Instr& i) { return i.varies == v; }));
}

TEST(Tape, ConstantsFold) {
  const Tape t = compile(parse_expression("2*3 + 4^0.5"), bind);
  ASSERT_EQ(t.code.size(), 1u);
  EXPECT_EQ(t.code[0].op, OpCode::constant);
  EXPECT_EQ(t.code[0].value, 8.0);
}

TEST(Tape, DataOnlyFactorsAreGroupedSoOneMultiplyPerCandidateRemains) {
  // c1*d/(b*p): d/(b*p) is data-only, so the candidate loop does a single multiply.
  const Tape t = compile(parse_expression("c1*d/(b*p)"), bind);
  EXPECT_EQ(count(t, Varies::both), 1u);
  // c3*d*log2(p)*(p-1)/p: everything but c3 is data-only.
  const Tape u = compile(parse_expression("c3*d*log2(p)*(p-1)/p"), bind);
  EXPECT_EQ(count(u, Varies::both), 1u);
}

TEST(Tape, FittedExponentOfAColumnSharesTheLogAcrossCandidates) {
  const Tape t = compile(parse_expression("b^c2"), bind);
  const Instr& r = t.code[t.result];
  EXPECT_EQ(r.op, OpCode::powlog);
  EXPECT_EQ(t.code[r.b].op, OpCode::log);
  EXPECT_EQ(t.code[r.b].varies, Varies::data);
}

TEST(Tape, CommonSubexpressionsShareASlotAndDeadCodeIsDropped) {
  const Tape t = compile(parse_expression("d/(b*p)*c0 + d/(b*p)*c1"), bind);
  // d, b, p, b*p (or regrouped), d/(b*p) once, c0, c1, two products, one sum.
  const auto divs = std::count_if(t.code.begin(), t.code.end(),
                                  [](const Instr& i) { return i.op == OpCode::div; });
  EXPECT_EQ(divs, 1);
  for (std::size_t i = 0; i + 1 < t.code.size(); ++i) {
    const auto s = static_cast<std::int32_t>(i);
    const bool used =
        std::any_of(t.code.begin(), t.code.end(),
                    [&](const Instr& x) { return x.a == s || x.b == s; }) ||
        std::any_of(t.terms.begin(), t.terms.end(), [&](const LinTerm& x) {
          return x.scalar == s || x.v1 == s || x.v2 == s || x.exp_scalar == s || x.exp_log == s;
        });
    EXPECT_TRUE(used || s == t.result) << "dead slot " << i;
  }
}

TEST(Tape, ASumOfProductsIsOneFusedInstructionPerCandidate) {
  // The generic model's shape: everything per candidate is one lincomb, b^c2 included.
  const Tape t =
      compile(parse_expression("c0 + d/(b*p)*c1*b^c2 + d/(b*p)*c3 + d/(b*p)*c2*log2(p)"), bind);
  EXPECT_EQ(count(t, Varies::both), 1u);
  EXPECT_EQ(t.code[t.result].op, OpCode::lincomb);
  EXPECT_EQ(t.code[t.result].count, 4);
}

TEST(Tape, SmallIntegerPowersBecomeMultiplies) {
  EXPECT_EQ(compile(parse_expression("p^2"), bind).code.back().op, OpCode::square);
  EXPECT_EQ(compile(parse_expression("p^3"), bind).code.back().op, OpCode::cube);
  EXPECT_EQ(compile(parse_expression("p^-1"), bind).code.back().op, OpCode::inv);
  EXPECT_EQ(compile(parse_expression("p^0.5"), bind).code.back().op, OpCode::sqrt);
}

}  // namespace perfit::model
