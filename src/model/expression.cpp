#include "perfit/model/expression.hpp"

#include <cctype>
#include <charconv>

#include "perfit/core/error.hpp"

namespace perfit::model {

const char* to_string(Func f) {
  switch (f) {
    case Func::log:
      return "log";
    case Func::log2:
      return "log2";
    case Func::exp:
      return "exp";
    case Func::sqrt:
      return "sqrt";
    case Func::abs:
      return "abs";
    case Func::min:
      return "min";
    case Func::max:
      return "max";
    case Func::ceil:
      return "ceil";
    case Func::floor:
      return "floor";
  }
  return "?";
}

std::string caret(std::string_view text, std::size_t pos) {
  return "    " + std::string(text) + "\n    " + std::string(pos, ' ') + "^";
}

namespace {

struct FuncInfo {
  const char* name;
  Func func;
  std::size_t arity;
};
constexpr FuncInfo kFuncs[] = {
    {"log", Func::log, 1},   {"log2", Func::log2, 1}, {"exp", Func::exp, 1},
    {"sqrt", Func::sqrt, 1}, {"abs", Func::abs, 1},   {"min", Func::min, 2},
    {"max", Func::max, 2},   {"ceil", Func::ceil, 1}, {"floor", Func::floor, 1}};

// Deeper nesting is refused: the parser and every pass over the tree recurse once per level.
constexpr std::size_t kMaxNesting = 128;

class Parser {
 public:
  Parser(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  ExprPtr parse() {
    skip();
    if (i_ >= s_.size()) fail("the expression is empty", 0);
    ExprPtr e = sum();
    skip();
    if (i_ < s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'", i_);
    return e;
  }

 private:
  struct Nesting {
    Parser& p;
    Nesting(Parser& parser, std::size_t pos) : p(parser) {
      if (++p.depth_ > kMaxNesting) {
        p.fail("nested deeper than " + std::to_string(kMaxNesting) +
                   " levels of parentheses, signs and exponents",
               pos);
      }
    }
    ~Nesting() { --p.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
  };

  [[noreturn]] void fail(const std::string& msg, std::size_t pos) const {
    throw ConfigError("syntax error in " + what_ + " at column " + std::to_string(pos + 1) + ": " +
                      msg + "\n" + caret(s_, pos));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  static ExprPtr node(Expr::Kind k, std::size_t pos, std::vector<ExprPtr> args) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->pos = pos;
    e->args = std::move(args);
    return e;
  }

  ExprPtr sum() {
    ExprPtr lhs = product();
    for (;;) {
      skip();
      const std::size_t pos = i_;
      if (eat('+')) {
        lhs = node(Expr::Kind::add, pos, {lhs, product()});
      } else if (eat('-')) {
        lhs = node(Expr::Kind::sub, pos, {lhs, product()});
      } else {
        return lhs;
      }
    }
  }
  ExprPtr product() {
    ExprPtr lhs = unary();
    for (;;) {
      skip();
      const std::size_t pos = i_;
      if (eat('*')) {
        lhs = node(Expr::Kind::mul, pos, {lhs, unary()});
      } else if (eat('/')) {
        lhs = node(Expr::Kind::div, pos, {lhs, unary()});
      } else {
        return lhs;
      }
    }
  }
  // Unary minus binds looser than ^ (-p^2 is -(p^2)); ^ is right-associative and takes a
  // signed exponent (p^-1).
  ExprPtr unary() {
    skip();
    const std::size_t pos = i_;
    // Every nesting (a parenthesis, a sign, an exponent) recurses through here: 2,289 '('
    // overflowed the stack (found by the fuzzer), far past any model a person writes.
    const Nesting nest(*this, pos);
    if (eat('-')) return node(Expr::Kind::neg, pos, {unary()});
    if (eat('+')) return unary();
    ExprPtr base = primary();
    skip();
    const std::size_t ppos = i_;
    if (eat('^')) return node(Expr::Kind::pow, ppos, {base, unary()});
    return base;
  }
  ExprPtr primary() {
    skip();
    const std::size_t pos = i_;
    if (i_ >= s_.size()) fail("expected a number, name or '(' but the expression ended", pos);
    const char c = s_[i_];
    if (eat('(')) {
      ExprPtr e = sum();
      if (!eat(')')) fail("expected ')' to close the '(' at column " + std::to_string(pos + 1), i_);
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return ident();
    fail("expected a number, name or '(' but found '" + std::string(1, c) + "'", pos);
  }
  ExprPtr number() {
    const std::size_t pos = i_;
    double v = 0;
    auto [p, ec] = std::from_chars(s_.data() + i_, s_.data() + s_.size(), v);
    if (ec != std::errc()) fail("malformed number", pos);
    i_ = static_cast<std::size_t>(p - s_.data());
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::number;
    e->value = v;
    e->pos = pos;
    return e;
  }
  ExprPtr ident() {
    const std::size_t pos = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      ++i_;
    }
    std::string name(s_.substr(pos, i_ - pos));
    skip();
    if (i_ < s_.size() && s_[i_] == '(') {
      const FuncInfo* f = nullptr;
      for (const auto& fi : kFuncs) {
        if (name == fi.name) f = &fi;
      }
      if (!f) {
        fail("unknown function '" + name +
                 "'; functions are log, log2, exp, sqrt, abs, min, max, ceil, floor",
             pos);
      }
      ++i_;
      std::vector<ExprPtr> args;
      if (!eat(')')) {
        do {
          args.push_back(sum());
        } while (eat(','));
        if (!eat(')')) fail("expected ',' or ')' in the arguments of " + name + "()", i_);
      }
      if (args.size() != f->arity) {
        fail(name + "() takes " + std::to_string(f->arity) + " argument(s), got " +
                 std::to_string(args.size()),
             pos);
      }
      auto e = node(Expr::Kind::call, pos, std::move(args));
      std::const_pointer_cast<Expr>(e)->func = f->func;
      return e;
    }
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::ident;
    e->name = std::move(name);
    e->pos = pos;
    return e;
  }

  std::string_view s_;
  std::string what_;
  std::size_t i_ = 0;
  std::size_t depth_ = 0;  // the Nesting levels open
};

void collect_terms(const ExprPtr& e, bool negate, std::vector<ExprPtr>& out) {
  if (e->kind == Expr::Kind::add || e->kind == Expr::Kind::sub) {
    collect_terms(e->args[0], negate, out);
    collect_terms(e->args[1], e->kind == Expr::Kind::sub ? !negate : negate, out);
    return;
  }
  if (!negate) {
    out.push_back(e);
    return;
  }
  auto n = std::make_shared<Expr>();
  n->kind = Expr::Kind::neg;
  n->pos = e->pos;
  n->args = {e};
  out.push_back(n);
}

void collect_idents(const ExprPtr& e, std::vector<std::string>& out) {
  if (e->kind == Expr::Kind::ident) {
    for (const auto& n : out) {
      if (n == e->name) return;
    }
    out.push_back(e->name);
  }
  for (const auto& a : e->args) collect_idents(a, out);
}

}  // namespace

ExprPtr parse_expression(std::string_view text, const std::string& what) {
  return Parser(text, what).parse();
}

std::vector<ExprPtr> additive_terms(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  collect_terms(e, false, out);
  return out;
}

namespace {

// Binding strength, as the parser reads it: sums, products, unary minus, powers, atoms.
int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::add:
    case Expr::Kind::sub:
      return 1;
    case Expr::Kind::mul:
    case Expr::Kind::div:
      return 2;
    case Expr::Kind::neg:
      return 3;
    case Expr::Kind::pow:
      return 4;
    default:
      return 5;
  }
}

std::string text_at(const ExprPtr& e, int at_least);

std::string text_of(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::number: {
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, e.value);
      return std::string(buf, r.ptr);
    }
    case Expr::Kind::ident:
      return e.name;
    case Expr::Kind::neg:
      return "-" + text_at(e.args[0], 3);
    case Expr::Kind::add:
      return text_at(e.args[0], 1) + " + " + text_at(e.args[1], 2);
    case Expr::Kind::sub:
      return text_at(e.args[0], 1) + " - " + text_at(e.args[1], 2);
    case Expr::Kind::mul:
      return text_at(e.args[0], 2) + "*" + text_at(e.args[1], 3);
    case Expr::Kind::div:
      return text_at(e.args[0], 2) + "/" + text_at(e.args[1], 3);
    case Expr::Kind::pow:
      return text_at(e.args[0], 5) + "^" + text_at(e.args[1], 4);
    case Expr::Kind::call: {
      std::string out = std::string(to_string(e.func)) + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i)
        out += (i ? ", " : "") + text_at(e.args[i], 1);
      return out + ")";
    }
  }
  return "?";
}

std::string text_at(const ExprPtr& e, int at_least) {
  return precedence(*e) >= at_least ? text_of(*e) : "(" + text_of(*e) + ")";
}

}  // namespace

std::string expression_text(const ExprPtr& e) { return text_of(*e); }

std::vector<std::string> identifiers(const ExprPtr& e) {
  std::vector<std::string> out;
  collect_idents(e, out);
  return out;
}

}  // namespace perfit::model
