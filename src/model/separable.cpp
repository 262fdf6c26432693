#include "perfit/model/separable.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "perfit/core/error.hpp"
#include "perfit/model/grouped_model.hpp"

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

// a + sign*b, termwise. `a` is taken over (not copied): a sum of G groups' terms nests G deep,
// and copying the growing map at every level made the split quadratic in the groups.
Affine combine(Affine a, const Affine& b, bool subtract) {
  const Expr::Kind k = subtract ? Expr::Kind::sub : Expr::Kind::add;
  auto merge = [&](const ExprPtr& x, const ExprPtr& y) -> ExprPtr {
    if (!y) return x;
    if (!x) return subtract ? node(Expr::Kind::neg, y) : y;
    return node(k, x, y);
  };
  Affine r;
  r.offset = merge(a.offset, b.offset);
  r.coef = std::move(a.coef);
  for (const auto& [i, c] : b.coef) {
    ExprPtr& slot = r.coef[i];
    slot = merge(slot, c);
  }
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
  Splitter(const Model& m, const std::vector<bool>& linear) : m_(m), linear_(linear) {}

  Affine split(const ExprPtr& e) const {
    switch (e->kind) {
      case Expr::Kind::number:
        return constant_part(e);
      case Expr::Kind::ident:
        return ident(e);
      case Expr::Kind::neg: {
        const Affine a = split(e->args[0]);
        if (!a.ok) return a;
        return a.independent() ? constant_part(e) : scale(number(-1.0), a, false);
      }
      case Expr::Kind::add:
      case Expr::Kind::sub: {
        Affine a = split(e->args[0]);
        const Affine b = split(e->args[1]);
        if (!a.ok || !b.ok) return fail();
        if (a.independent() && b.independent()) return constant_part(e);
        return combine(std::move(a), b, e->kind == Expr::Kind::sub);
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
    if (b.kind == Binding::Kind::param && linear_[static_cast<std::size_t>(b.index)]) {
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
  const std::vector<bool>& linear_;
};

// The columns e is a multiple of: factors of its products, numerators of its quotients, and
// the columns common to both sides of a sum.
std::vector<std::int32_t> multiple_of(const Model& m, const ExprPtr& e) {
  switch (e->kind) {
    case Expr::Kind::ident: {
      const Binding b = m.bind(e->name);
      if (b.kind == Binding::Kind::column) return {b.index};
      return b.kind == Binding::Kind::term ? multiple_of(m, b.term) : std::vector<std::int32_t>{};
    }
    case Expr::Kind::neg:
    case Expr::Kind::div:
      return multiple_of(m, e->args[0]);
    case Expr::Kind::mul: {
      std::vector<std::int32_t> a = multiple_of(m, e->args[0]);
      for (const auto c : multiple_of(m, e->args[1])) a.push_back(c);
      return a;
    }
    case Expr::Kind::add:
    case Expr::Kind::sub: {
      std::vector<std::int32_t> a = multiple_of(m, e->args[0]), both;
      for (const auto c : multiple_of(m, e->args[1])) {
        if (std::find(a.begin(), a.end(), c) != a.end()) both.push_back(c);
      }
      return both;
    }
    default:
      return {};
  }
}

Separation build(const Model& m, const std::vector<bool>& set, const Affine& a) {
  Separation s;
  for (std::size_t i = 0; i < m.n_params(); ++i) (set[i] ? s.linear : s.nonlinear).push_back(i);
  for (const std::size_t i : s.linear) {
    const auto it = a.coef.find(i);
    s.basis.push_back(m.compile_part(it == a.coef.end() ? number(0.0) : it->second));
    s.multiple_of.push_back(it == a.coef.end() ? std::vector<std::int32_t>{}
                                               : multiple_of(m, it->second));
  }
  if (a.offset) s.offset = m.compile_part(a.offset);
  return s;
}

constexpr std::size_t kSeparationsKept = 256;

Separation split(const Model& m, const std::vector<bool>& allowed) {
  // The allowed params, by position; a joint fit over many groups has hundreds of them.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < m.n_params(); ++i) {
    if (i < allowed.size() && allowed[i]) candidates.push_back(i);
  }
  std::vector<bool> best(m.n_params(), false);
  Affine best_split = constant_part(m.expression());
  auto affine_in = [&](const std::vector<bool>& set, Affine& out) {
    out = Splitter(m, set).split(m.expression());
    return out.ok;
  };
  if (candidates.size() <= 12) {
    // The most params; among equals, the most log-searched ones (wide ranges are what the DE
    // finds hardest), then the first in bit order.
    const std::uint32_t all = (std::uint32_t{1} << candidates.size()) - 1;
    auto members = [&](std::uint32_t mask) {
      std::vector<bool> set(m.n_params(), false);
      for (std::size_t k = 0; k < candidates.size(); ++k)
        set[candidates[k]] = (mask >> k & 1U) != 0;
      return set;
    };
    auto key = [&](std::uint32_t mask) {
      int logs = 0;
      for (std::size_t k = 0; k < candidates.size(); ++k)
        logs += (mask >> k & 1U) && m.spec().params[candidates[k]].log_scale;
      return std::pair<int, int>(std::popcount(mask), logs);
    };
    std::pair<int, int> best_key(0, 0);
    for (std::uint32_t mask = all;; mask = (mask - 1) & all) {
      Affine a;
      if (key(mask) > best_key && affine_in(members(mask), a)) {
        best = members(mask);
        best_key = key(mask);
        best_split = a;
      }
      if (mask == 0) break;
    }
  } else {
    // Greedy in param order. A joint fit's copies of one constant (c1__1 .. c1__G) come in a run:
    // the whole run is tried at once first, which adds what adding them one by one would (a
    // subset of an affine set is affine) at the cost of one split instead of G.
    for (std::size_t r = 0; r < candidates.size();) {
      std::size_t end = r + 1;
      const std::string family = split_group_param(m.param_names()[candidates[r]]).first;
      while (end < candidates.size() &&
             split_group_param(m.param_names()[candidates[end]]).first == family)
        ++end;
      std::vector<bool> set = best;
      for (std::size_t k = r; k < end; ++k) set[candidates[k]] = true;
      Affine a;
      if (end - r > 1 && affine_in(set, a)) {
        best = std::move(set);
        best_split = a;
        r = end;
        continue;
      }
      for (; r < end; ++r) {
        std::vector<bool> one = best;
        one[candidates[r]] = true;
        if (affine_in(one, a)) {
          best = std::move(one);
          best_split = a;
        }
      }
    }
  }
  return build(m, best, best_split);
}

}  // namespace

Separation separate(const Model& m, const std::vector<bool>& allowed) {
  // Kept by the model's tapes, the allowed params and which are log-searched (all the split
  // depends on): a selection fits a winner per set of a few dozen hypotheses, and finding the
  // split took 3% of a selection over 10^4 sets. Per thread, bounded.
  thread_local std::unordered_map<std::string, Separation> memo;
  if (m.compiled_as().empty()) return split(m, allowed);
  std::string key = m.compiled_as();
  for (std::size_t i = 0; i < m.n_params(); ++i) {
    key.push_back(static_cast<char>('0' + (i < allowed.size() && allowed[i]) +
                                    2 * m.spec().params[i].log_scale));
  }
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() >= kSeparationsKept) memo.clear();
  return memo.emplace(std::move(key), split(m, allowed)).first->second;
}

}  // namespace perfit::model
