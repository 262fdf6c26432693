#include "perfit/model/expression.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfit/core/error.hpp"

namespace perfit::model {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Expression, PrecedenceAndAssociativity) {
  // -p^2 is -(p^2); ^ is right-associative; * and / bind tighter than + and -.
  auto e = parse_expression("-p^2");
  ASSERT_EQ(e->kind, Expr::Kind::neg);
  EXPECT_EQ(e->args[0]->kind, Expr::Kind::pow);
  e = parse_expression("a^b^c");
  ASSERT_EQ(e->kind, Expr::Kind::pow);
  EXPECT_EQ(e->args[1]->kind, Expr::Kind::pow);
  e = parse_expression("a - b*c/d + 2e-3");
  ASSERT_EQ(e->kind, Expr::Kind::add);
  EXPECT_EQ(e->args[1]->value, 2e-3);
  EXPECT_EQ(e->args[0]->kind, Expr::Kind::sub);
  e = parse_expression("p^-1");
  EXPECT_EQ(e->args[1]->kind, Expr::Kind::neg);
}

TEST(Expression, AdditiveTermsKeepSigns) {
  const auto terms = additive_terms(parse_expression("c0 + c1*d/p - comm + (x + y)"));
  ASSERT_EQ(terms.size(), 5u);  // parentheses do not hide a sum's terms
  EXPECT_EQ(terms[0]->name, "c0");
  EXPECT_EQ(terms[2]->kind, Expr::Kind::neg);
  EXPECT_EQ(terms[2]->args[0]->name, "comm");
}

TEST(Expression, IdentifiersInFirstUseOrder) {
  EXPECT_EQ(identifiers(parse_expression("c0 + c1*max(p, b)/p + log2(c0)")),
            (std::vector<std::string>{"c0", "c1", "p", "b"}));
}

TEST(Expression, TextParsesBackToTheSameTreeWithOnlyTheParenthesesNeeded) {
  for (const std::string text :
       {"c0 + c1*p^(1/2)*log2(p)^2", "a - (b - c)", "(a + b)*c/(d*e)", "-x^2", "(-x)^2", "a/b/c",
        "a/(b/c)", "2^3^4", "(2^3)^4", "max(p, b - 1)/p", "0.1 + 1e-07*p"}) {
    EXPECT_EQ(expression_text(parse_expression(text)), text);
  }
  EXPECT_EQ(expression_text(parse_expression("((c0)) + (c1 * p)")), "c0 + c1*p");
  EXPECT_EQ(expression_text(parse_expression("a + (b + c)")), "a + (b + c)");  // the tree as parsed
}

TEST(Expression, SyntaxErrorShowsACaretAtThePosition) {
  EXPECT_THAT([] { parse_expression("c0 + (c1*d"); },
              ThrowsMessage<ConfigError>(AllOf(HasSubstr("at column 11: expected ')'"),
                                               HasSubstr("    c0 + (c1*d\n              ^"))));
  EXPECT_THAT([] { parse_expression("c0 + * p"); },
              ThrowsMessage<ConfigError>(HasSubstr("column 6: expected a number, name or '('")));
  EXPECT_THAT([] { parse_expression("c0 c1"); },
              ThrowsMessage<ConfigError>(HasSubstr("unexpected 'c'")));
  EXPECT_THAT([] { parse_expression("sin(p)"); },
              ThrowsMessage<ConfigError>(HasSubstr("unknown function 'sin'; functions are log")));
  EXPECT_THAT([] { parse_expression("max(p)"); },
              ThrowsMessage<ConfigError>(HasSubstr("max() takes 2 argument(s), got 1")));
  EXPECT_THAT([] { parse_expression("  "); },
              ThrowsMessage<ConfigError>(HasSubstr("the expression is empty")));
}

// The fuzzer's 2,289 '(' overflowed the stack; every kind of nesting is bounded.
TEST(Expression, NestingPastTheLimitIsASyntaxErrorNotAStackOverflow) {
  const auto nested = [](std::size_t n) { return std::string(n, '(') + "p" + std::string(n, ')'); };
  EXPECT_EQ(expression_text(parse_expression(nested(127))), "p");
  const auto refused = ThrowsMessage<ConfigError>(HasSubstr("nested deeper than 128 levels"));
  EXPECT_THAT([&] { parse_expression(nested(128)); }, refused);
  EXPECT_THAT([&] { parse_expression(nested(100000)); }, refused);
  EXPECT_THAT([] { parse_expression(std::string(100000, '-') + "p"); }, refused);
  std::string tower = "p";
  for (int i = 0; i < 100000; ++i) tower += "^p";
  EXPECT_THAT([&] { parse_expression(tower); }, refused);
  std::string calls = "p";
  for (int i = 0; i < 200; ++i) calls = "log(" + calls + ")";
  EXPECT_THAT([&] { parse_expression(calls); }, refused);
}

}  // namespace perfit::model
