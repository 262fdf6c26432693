#include "perfit/model/separable.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <utility>

#include "perfit/core/error.hpp"

namespace perfit::model {

SeparableMode parse_separable_mode(const std::string& s) {
  if (s == "auto") return SeparableMode::automatic;
  if (s == "off") return SeparableMode::off;
  throw ConfigError("separable must be one of auto, off; got '" + s + "'");
}

const char* to_string(SeparableMode m) { return m == SeparableMode::automatic ? "auto" : "off"; }

namespace {

ExprPtr node(Expr::Kind k, ExprPtr a, ExprPtr b = nullptr) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->args.push_back(std::move(a));
  if (b) e->args.push_back(std::move(b));
  return e;
}

ExprPtr number(double v) {
  auto e = std::make_shared<Expr>();
  e->value = v;
  return e;
}

bool is_one(const ExprPtr& e) { return e->kind == Expr::Kind::number && e->value == 1.0; }

ExprPtr times(const ExprPtr& a, const ExprPtr& b) {
  if (is_one(a)) return b;
  if (is_one(b)) return a;
  return node(Expr::Kind::mul, a, b);
}

// An expression as offset + sum_k coef[k] * param_k over the params in the linear set.
// A null offset is 0. `ok` false: not affine in the set.
struct Affine {
  bool ok = true;
  ExprPtr offset;
  std::map<std::size_t, ExprPtr> coef;
  bool independent() const { return ok && coef.empty(); }
};

Affine fail() {
  Affine a;
  a.ok = false;
  return a;
}

Affine constant_part(const ExprPtr& e) {
  Affine a;
  a.offset = e;
  return a;
}

// a + sign*b, termwise.
Affine combine(const Affine& a, const Affine& b, bool subtract) {
  const Expr::Kind k = subtract ? Expr::Kind::sub : Expr::Kind::add;
  auto merge = [&](const ExprPtr& x, const ExprPtr& y) -> ExprPtr {
    if (!y) return x;
    if (!x) return subtract ? node(Expr::Kind::neg, y) : y;
    return node(k, x, y);
  };
  Affine r;
  r.offset = merge(a.offset, b.offset);
  r.coef = a.coef;
  for (const auto& [i, c] : b.coef) r.coef[i] = merge(r.coef.count(i) ? r.coef[i] : nullptr, c);
  return r;
}

// s * a with s independent of the linear set (s null: 0).
Affine scale(const ExprPtr& s, const Affine& a, bool divide) {
  Affine r;
  const ExprPtr f = s ? s : number(0.0);
  auto apply = [&](const ExprPtr& x) { return divide ? node(Expr::Kind::div, x, f) : times(f, x); };
  if (a.offset) r.offset = apply(a.offset);
  for (const auto& [i, c] : a.coef) r.coef[i] = apply(c);
  return r;
}

class Splitter {
 public:
  Splitter(const Model& m, std::uint64_t linear) : m_(m), linear_(linear) {}

  Affine split(const ExprPtr& e) const {
    switch (e->kind) {
      case Expr::Kind::number: return constant_part(e);
      case Expr::Kind::ident: return ident(e);
      case Expr::Kind::neg: {
        const Affine a = split(e->args[0]);
        if (!a.ok) return a;
        return a.independent() ? constant_part(e) : scale(number(-1.0), a, false);
      }
      case Expr::Kind::add:
      case Expr::Kind::sub: {
        const Affine a = split(e->args[0]), b = split(e->args[1]);
        if (!a.ok || !b.ok) return fail();
        if (a.independent() && b.independent()) return constant_part(e);
        return combine(a, b, e->kind == Expr::Kind::sub);
      }
      case Expr::Kind::mul: {
        const Affine a = split(e->args[0]), b = split(e->args[1]);
        if (!a.ok || !b.ok) return fail();
        if (a.independent() && b.independent()) return constant_part(e);
        if (a.independent()) return scale(a.offset, b, false);
        if (b.independent()) return scale(b.offset, a, false);
        return fail();  // a product of two linear params
      }
      case Expr::Kind::div: {
        const Affine a = split(e->args[0]), b = split(e->args[1]);
        if (!a.ok || !b.independent()) return fail();
        return a.independent() ? constant_part(e) : scale(b.offset, a, true);
      }
      case Expr::Kind::pow:
      case Expr::Kind::call:
        for (const auto& arg : e->args) {
          if (!split(arg).independent()) return fail();
        }
        return constant_part(e);
    }
    return fail();
  }

 private:
  Affine ident(const ExprPtr& e) const {
    const Binding b = m_.bind(e->name);
    if (b.kind == Binding::Kind::param && (linear_ >> b.index & 1U)) {
      Affine a;
      a.coef[static_cast<std::size_t>(b.index)] = number(1.0);
      return a;
    }
    if (b.kind == Binding::Kind::term) {
      const Affine a = split(b.term);
      return a.independent() ? constant_part(e) : a;  // keep the name: compile() inlines it
    }
    return constant_part(e);
  }

  const Model& m_;
  std::uint64_t linear_;
};

Separation build(const Model& m, std::uint64_t set, const Affine& a) {
  Separation s;
  for (std::size_t i = 0; i < m.n_params(); ++i) (set >> i & 1U ? s.linear : s.nonlinear).push_back(i);
  for (const std::size_t i : s.linear) {
    const auto it = a.coef.find(i);
    s.basis.push_back(m.compile_part(it == a.coef.end() ? number(0.0) : it->second));
  }
  if (a.offset) s.offset = m.compile_part(a.offset);
  return s;
}

}  // namespace

Separation separate(const Model& m, const std::vector<bool>& allowed) {
  const std::size_t n = std::min<std::size_t>(m.n_params(), 63);
  std::uint64_t candidates = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < allowed.size() && allowed[i]) candidates |= std::uint64_t{1} << i;
  }
  std::uint64_t best = 0;
  Affine best_split = constant_part(m.expression());
  auto affine_in = [&](std::uint64_t set, Affine& out) {
    out = Splitter(m, set).split(m.expression());
    return out.ok;
  };
  if (std::popcount(candidates) <= 12) {
    // The most params; among equals, the most log-searched ones (wide ranges are what the DE
    // finds hardest), then the first in bit order.
    auto key = [&](std::uint64_t set) {
      int logs = 0;
      for (std::size_t i = 0; i < n; ++i) logs += (set >> i & 1U) && m.spec().params[i].log_scale;
      return std::pair<int, int>(std::popcount(set), logs);
    };
    std::pair<int, int> best_key(0, 0);
    for (std::uint64_t set = candidates;; set = (set - 1) & candidates) {
      Affine a;
      if (key(set) > best_key && affine_in(set, a)) {
        best = set;
        best_key = key(set);
        best_split = a;
      }
      if (set == 0) break;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      Affine a;
      if ((candidates & bit) && affine_in(best | bit, a)) {
        best |= bit;
        best_split = a;
      }
    }
  }
  return build(m, best, best_split);
}

}  // namespace perfit::model
