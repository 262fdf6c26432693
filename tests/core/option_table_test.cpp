#include "perfit/core/option_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace perfit {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(OptionTable, ValuesAreCheckedAgainstTheirRange) {
  EXPECT_EQ(parse_whole("1e6", 1, 1000000000, "n"), 1000000u);
  EXPECT_EQ(parse_whole("18446744073709551615", 0, UINT64_MAX, "n"), UINT64_MAX);
  EXPECT_THAT(
      [] { parse_whole("-1", 1, 10, "a whole number in [1, 10]"); },
      ThrowsMessage<ConfigError>(HasSubstr("found '-1', expected a whole number in [1, 10]")));
  EXPECT_THAT([] { parse_whole("1.5", 1, 10, "w"); },
              ThrowsMessage<ConfigError>(HasSubstr("'1.5'")));
  EXPECT_EQ(parse_real("-inf", -INFINITY, INFINITY, "x"), -INFINITY);
  EXPECT_THAT([] { parse_real("nan", 0, 1, "x"); }, ThrowsMessage<ConfigError>(HasSubstr("'nan'")));
  EXPECT_THAT([] { parse_bool("maybe"); }, ThrowsMessage<ConfigError>(HasSubstr("true or false")));
}

TEST(OptionTable, FormattedValuesParseBackExactly) {
  for (const double v : {0.1, 1.0 / 3.0, 1e-300, 123456789.125, -static_cast<double>(INFINITY)}) {
    EXPECT_EQ(parse_real(format_real(v), -INFINITY, INFINITY, "x"), v);
  }
  EXPECT_EQ(flag_of("de.max_generations"), "max-generations");
  EXPECT_EQ(keys_in_section({"a", "de.x", "de.y", "islands.z"}, "de.q"), "x, y");
  EXPECT_EQ(keys_in_section({"a", "de.x", "de.y", "islands.z"}, "b"), "a, de, islands");
}

struct Args {
  std::string mode = "a";
  std::vector<std::string> items;
  std::size_t n = 3;
};

TEST(OptionTable, MemberPointerBuildersCheckChoicesAndCollectLists) {
  const auto mode = choice_option<Args>("mode", &Args::mode, {"a", "b"}, "doc");
  const auto words = list_option<Args>("word", &Args::items, "words", "doc");
  const auto cols = list_option<Args>("columns", &Args::items, "names", "doc", true);
  const auto n = required(whole_option<Args>("n", &Args::n, 1, 9, "doc"));
  Args a;
  mode.parse(a, "b");
  EXPECT_EQ(a.mode, "b");
  EXPECT_THAT([&] { mode.parse(a, "c"); },
              ThrowsMessage<ConfigError>(HasSubstr("found 'c', expected one of a, b")));
  words.parse(a, "x,y");
  cols.parse(a, "u,,v");
  EXPECT_EQ(a.items, (std::vector<std::string>{"x,y", "u", "v"}));
  EXPECT_EQ(cols.format(a), "x,y,u,v");
  EXPECT_TRUE(words.repeatable && !words.required && n.required && !n.positional);
  EXPECT_TRUE(positional(n).positional);
  EXPECT_EQ(n.format(a), "3");
}

}  // namespace perfit
