// The expression language of performance models: infix + - * / ^, unary minus, parentheses,
// numbers, identifiers (columns, params, constants, named terms) and the functions
// log log2 exp sqrt abs min max ceil floor. Parsed once into an immutable tree; the tape
// compiler (tape.hpp) turns it into what the evaluator runs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfit::model {

enum class Func { log, log2, exp, sqrt, abs, min, max, ceil, floor };
const char* to_string(Func f);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind { number, ident, neg, add, sub, mul, div, pow, call };
  Kind kind = Kind::number;
  double value = 0.0;     // number
  std::string name;       // ident
  Func func = Func::log;  // call
  std::vector<ExprPtr> args;
  std::size_t pos = 0;  // offset in the source text, for messages
};

// Throws: ConfigError "syntax error in <what>: ..." followed by the text and a caret line.
ExprPtr parse_expression(std::string_view text, const std::string& what = "expression");

// The top-level additive terms: a - b + c gives {a, -b, c} (a negated term is wrapped in neg).
std::vector<ExprPtr> additive_terms(const ExprPtr& e);

// The expression as text that parses back to the same tree: parentheses only where needed,
// spaces around + and - ("c0 + c1*p^(1/2)"), numbers in their shortest exact form.
std::string expression_text(const ExprPtr& e);

// Identifiers used, in first-use order, each once.
std::vector<std::string> identifiers(const ExprPtr& e);

// The text with a caret under offset pos (two lines, indented).
std::string caret(std::string_view text, std::size_t pos);

}  // namespace perfit::model
