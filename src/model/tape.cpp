#include "perfit/model/tape.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "perfit/core/assert.hpp"

namespace perfit::model {

namespace {

class Compiler {
 public:
  explicit Compiler(const Resolver& r) : resolve_(r) {}

  // Drops instructions the result does not use (folding and regrouping leave some behind;
  // each would still cost a pass over every block).
  Tape finish(std::int32_t result) {
    std::vector<bool> live(tape_.code.size(), false);
    live[result] = true;
    auto mark = [&](std::int32_t s) {
      if (s >= 0) live[s] = true;
    };
    for (auto i = static_cast<std::int32_t>(tape_.code.size()) - 1; i >= 0; --i) {
      if (!live[i]) continue;
      const Instr& in = tape_.code[i];
      mark(in.a);
      mark(in.b);
      for (std::int32_t k = 0; in.op == OpCode::lincomb && k < in.count; ++k) {
        const LinTerm& t = tape_.terms[in.index + k];
        mark(t.scalar);
        mark(t.v1);
        mark(t.v2);
        mark(t.exp_scalar);
        mark(t.exp_log);
      }
    }
    Tape out;
    std::vector<std::int32_t> remap(tape_.code.size(), -1);
    auto re = [&](std::int32_t s) { return s >= 0 ? remap[s] : s; };
    for (std::size_t i = 0; i < tape_.code.size(); ++i) {
      if (!live[i]) continue;
      Instr in = tape_.code[i];
      in.a = re(in.a);
      in.b = re(in.b);
      if (in.op == OpCode::lincomb) {
        const auto first = static_cast<std::int32_t>(out.terms.size());
        for (std::int32_t k = 0; k < in.count; ++k) {
          LinTerm t = tape_.terms[in.index + k];
          t.scalar = re(t.scalar);
          t.v1 = re(t.v1);
          t.v2 = re(t.v2);
          t.exp_scalar = re(t.exp_scalar);
          t.exp_log = re(t.exp_log);
          out.terms.push_back(t);
        }
        in.index = first;
      }
      remap[i] = static_cast<std::int32_t>(out.code.size());
      out.code.push_back(in);
    }
    out.result = remap[result];
    return out;
  }

  std::int32_t emit(Instr in) {
    if (in.op == OpCode::lincomb) {
      tape_.code.push_back(in);
      return static_cast<std::int32_t>(tape_.code.size() - 1);
    }
    // Fold constants: an op whose operands are all constants is a constant.
    if (in.op != OpCode::constant && in.op != OpCode::param && in.op != OpCode::column) {
      const bool ca = in.a < 0 || tape_.code[in.a].op == OpCode::constant;
      const bool cb = in.b < 0 || tape_.code[in.b].op == OpCode::constant;
      if (ca && cb) {
        const double a = in.a >= 0 ? tape_.code[in.a].value : 0.0;
        const double b = in.b >= 0 ? tape_.code[in.b].value : 0.0;
        return constant(apply_scalar(in.op, a, b));
      }
      in.varies = combine(in.a >= 0 ? tape_.code[in.a].varies : Varies::none,
                          in.b >= 0 ? tape_.code[in.b].varies : Varies::none);
    }
    std::uint64_t bits = 0;
    std::memcpy(&bits, &in.value, sizeof bits);
    const auto key = std::make_tuple(static_cast<int>(in.op), in.a, in.b, in.index, bits);
    auto it = seen_.find(key);
    if (it != seen_.end()) return it->second;
    tape_.code.push_back(in);
    const auto slot = static_cast<std::int32_t>(tape_.code.size() - 1);
    seen_.emplace(key, slot);
    return slot;
  }
  std::int32_t constant(double v) {
    Instr in;
    in.op = OpCode::constant;
    in.value = v;
    return emit(in);
  }
  std::int32_t op(OpCode code, std::int32_t a, std::int32_t b = -1) {
    Instr in;
    in.op = code;
    in.a = a;
    in.b = b;
    return emit(in);
  }
  Varies varies(std::int32_t slot) const { return tape_.code[slot].varies; }
  bool is_const(std::int32_t slot, double v) const {
    return tape_.code[slot].op == OpCode::constant && tape_.code[slot].value == v;
  }

  std::int32_t expr(const ExprPtr& e) {
    switch (e->kind) {
      case Expr::Kind::number:
        return constant(e->value);
      case Expr::Kind::ident:
        return ident(*e);
      case Expr::Kind::neg:
        return op(OpCode::neg, expr(e->args[0]));
      case Expr::Kind::add:
      case Expr::Kind::sub:
        return chain(e, true);
      case Expr::Kind::mul:
      case Expr::Kind::div:
        return chain(e, false);
      case Expr::Kind::pow:
        return power(expr(e->args[0]), expr(e->args[1]));
      case Expr::Kind::call:
        return call(*e);
    }
    return -1;
  }

 private:
  std::int32_t ident(const Expr& e) {
    const Binding b = resolve_(e.name);
    Instr in;
    switch (b.kind) {
      case Binding::Kind::param:
        in.op = OpCode::param;
        in.varies = Varies::param;
        in.index = b.index;
        return emit(in);
      case Binding::Kind::column:
        in.op = OpCode::column;
        in.varies = Varies::data;
        in.index = b.index;
        return emit(in);
      case Binding::Kind::constant:
        return constant(b.value);
      case Binding::Kind::term:
        return expr(b.term);
      case Binding::Kind::unknown:
        break;
    }
    PERFIT_ASSERT(false, "unresolved identifier reached the compiler");
    return -1;
  }

  std::int32_t call(const Expr& e) {
    const std::int32_t a = expr(e.args[0]);
    switch (e.func) {
      case Func::log:
        return op(OpCode::log, a);
      case Func::log2:
        return op(OpCode::log2, a);
      case Func::exp:
        return op(OpCode::exp, a);
      case Func::sqrt:
        return op(OpCode::sqrt, a);
      case Func::abs:
        return op(OpCode::abs, a);
      case Func::ceil:
        return op(OpCode::ceil, a);
      case Func::floor:
        return op(OpCode::floor, a);
      case Func::min:
        return op(OpCode::min, a, expr(e.args[1]));
      case Func::max:
        return op(OpCode::max, a, expr(e.args[1]));
    }
    return -1;
  }

  // x^y: small integer and half exponents become multiplies or sqrt (exact for negative x);
  // a per-row base with a fitted exponent becomes exp(y*log(x)) (powlog), so log(x) is
  // computed once per block and shared by all candidates. Differs from pow only for a negative
  // base with an integer-valued fitted exponent (NaN here), which no timing model needs.
  std::int32_t power(std::int32_t x, std::int32_t y) {
    if (tape_.code[y].op == OpCode::constant) {
      const double v = tape_.code[y].value;
      if (v == 1.0) return x;
      if (v == 2.0) return op(OpCode::square, x);
      if (v == 3.0) return op(OpCode::cube, x);
      if (v == -1.0) return op(OpCode::inv, x);
      if (v == 0.5) return op(OpCode::sqrt, x);
    }
    if (varies(x) == Varies::data && varies(y) != Varies::data && varies(y) != Varies::none) {
      return op(OpCode::powlog, y, op(OpCode::log, x));
    }
    return op(OpCode::pow, x, y);
  }

  // Flattens a +/- (or * and /) chain into signed operands, groups them by what they vary
  // with, and combines constant, param-only and data-only groups before mixed ones.
  std::int32_t chain(const ExprPtr& e, bool additive) {
    std::vector<std::pair<ExprPtr, bool>> items;  // (operand, inverted: subtracted/divided)
    flatten(e, additive, false, items);
    // Groups: none, param, data, both, each a list of (slot, inverted).
    std::vector<std::pair<std::int32_t, bool>> groups[4];
    for (const auto& [x, inverted] : items) {
      const std::int32_t s = expr(x);
      groups[static_cast<int>(varies(s))].emplace_back(s, inverted);
    }
    return additive ? sum_chain(groups) : product_chain(groups);
  }

  using Group = std::vector<std::pair<std::int32_t, bool>>;

  // (a*b)/(c*d) with one division; a+b-(c+d) likewise.
  std::int32_t fold(const Group& g, OpCode plus, OpCode minus, OpCode flip) {
    std::int32_t pos = -1, neg = -1;
    for (const auto& [s, inv] : g) {
      std::int32_t& acc = inv ? neg : pos;
      acc = acc < 0 ? s : op(plus, acc, s);
    }
    if (neg < 0) return pos;
    return pos < 0 ? op(flip, neg) : op(minus, pos, neg);
  }
  std::int32_t join(std::int32_t a, std::int32_t b, OpCode plus) {
    if (a < 0) return b;
    if (b < 0) return a;
    return op(plus, a, b);
  }

  // scalar * data * mixed factors -> one lincomb term (which a surrounding sum can absorb).
  // One column-to-a-fitted-power factor (powlog) rides along as the term's exp factor.
  std::int32_t product_chain(const Group* groups) {
    std::int32_t scalar = join(fold(groups[0], OpCode::mul, OpCode::div, OpCode::inv),
                               fold(groups[1], OpCode::mul, OpCode::div, OpCode::inv), OpCode::mul);
    if (scalar >= 0 && is_const(scalar, 1.0)) scalar = -1;
    std::vector<std::int32_t> vecs;
    const std::int32_t d = fold(groups[2], OpCode::mul, OpCode::div, OpCode::inv);
    if (d >= 0) vecs.push_back(d);
    std::int32_t exp_scalar = -1, exp_log = -1;
    for (const auto& [s, inv] : groups[3]) {
      const Instr& in = tape_.code[s];
      if (!inv && exp_log < 0 && in.op == OpCode::powlog && !is_vector(varies(in.a)) &&
          varies(in.b) == Varies::data) {
        exp_scalar = in.a;
        exp_log = in.b;
        continue;
      }
      vecs.push_back(inv ? op(OpCode::inv, s) : s);
    }
    if (vecs.empty() && exp_log < 0) return scalar >= 0 ? scalar : constant(1.0);
    while (vecs.size() > 2) {
      const std::int32_t last = vecs.back();
      vecs.pop_back();
      vecs.back() = op(OpCode::mul, vecs.back(), last);
    }
    if (exp_log < 0 && scalar < 0 && vecs.size() == 1) return vecs[0];
    if (exp_log < 0 && scalar >= 0 && tape_.code[scalar].op == OpCode::constant &&
        vecs.size() == 1 && varies(vecs[0]) == Varies::data) {
      return op(OpCode::mul, vecs[0], scalar);  // data-only: computed once per block anyway
    }
    LinTerm t;
    t.scalar = scalar;
    t.v1 = vecs.size() > 0 ? vecs[0] : -1;
    t.v2 = vecs.size() > 1 ? vecs[1] : -1;
    t.exp_scalar = exp_scalar;
    t.exp_log = exp_log;
    return lincomb({t});
  }

  // constants + params + data + mixed terms -> one lincomb; mixed terms that are themselves
  // lincombs are inlined, so a model written as named terms still costs one pass.
  std::int32_t sum_chain(const Group* groups) {
    const std::int32_t scalar =
        join(fold(groups[0], OpCode::add, OpCode::sub, OpCode::neg),
             fold(groups[1], OpCode::add, OpCode::sub, OpCode::neg), OpCode::add);
    const std::int32_t d = fold(groups[2], OpCode::add, OpCode::sub, OpCode::neg);
    if (groups[3].empty()) return join(join(-1, d, OpCode::add), scalar, OpCode::add);
    std::vector<LinTerm> terms;
    if (scalar >= 0 && !is_const(scalar, 0.0)) terms.push_back({1.0, scalar, -1, -1});
    if (d >= 0) terms.push_back({1.0, -1, d, -1});
    for (const auto& [s, inv] : groups[3]) {
      const double sign = inv ? -1.0 : 1.0;
      const Instr& in = tape_.code[s];
      if (in.op == OpCode::lincomb) {
        for (std::int32_t k = 0; k < in.count; ++k) {
          LinTerm t = tape_.terms[in.index + k];
          t.coef *= sign;
          terms.push_back(t);
        }
      } else {
        terms.push_back({sign, -1, s, -1});
      }
    }
    return lincomb(std::move(terms));
  }

  std::int32_t lincomb(std::vector<LinTerm> terms) {
    while (terms.size() > kMaxLinTerms) {
      std::vector<LinTerm> head(terms.begin(), terms.begin() + kMaxLinTerms);
      std::vector<LinTerm> rest{{1.0, -1, lincomb(std::move(head)), -1}};
      rest.insert(rest.end(), terms.begin() + kMaxLinTerms, terms.end());
      terms = std::move(rest);
    }
    if (terms.size() == 1 && terms[0].coef == 1.0 && terms[0].scalar < 0 && terms[0].v2 < 0 &&
        terms[0].v1 >= 0 && terms[0].exp_log < 0) {
      return terms[0].v1;
    }
    Instr in;
    in.op = OpCode::lincomb;
    in.index = static_cast<std::int32_t>(tape_.terms.size());
    in.count = static_cast<std::int32_t>(terms.size());
    for (const auto& t : terms) {
      for (const std::int32_t s : {t.scalar, t.v1, t.v2, t.exp_scalar, t.exp_log}) {
        if (s >= 0) in.varies = combine(in.varies, varies(s));
      }
      tape_.terms.push_back(t);
    }
    return emit(in);
  }

  static void flatten(const ExprPtr& e, bool additive, bool inverted,
                      std::vector<std::pair<ExprPtr, bool>>& out) {
    const bool same = additive ? (e->kind == Expr::Kind::add || e->kind == Expr::Kind::sub)
                               : (e->kind == Expr::Kind::mul || e->kind == Expr::Kind::div);
    if (!same) {
      out.emplace_back(e, inverted);
      return;
    }
    const bool second_inverted = e->kind == Expr::Kind::sub || e->kind == Expr::Kind::div;
    flatten(e->args[0], additive, inverted, out);
    flatten(e->args[1], additive, inverted != second_inverted, out);
  }

  const Resolver& resolve_;
  Tape tape_;
  std::map<std::tuple<int, std::int32_t, std::int32_t, std::int32_t, std::uint64_t>, std::int32_t>
      seen_;
};

}  // namespace

Tape compile(const ExprPtr& e, const Resolver& resolve) {
  Compiler c(resolve);
  const std::int32_t r = c.expr(e);
  return c.finish(r);
}

}  // namespace perfit::model
