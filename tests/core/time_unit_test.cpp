#include "perfit/core/time_unit.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perfit/core/error.hpp"

namespace perfit {

TEST(TimeUnit, ConvertsEachKnownUnitToSeconds) {
  EXPECT_EQ(seconds_per_unit("s"), 1.0);
  EXPECT_EQ(seconds_per_unit("ms"), 1e-3);
  EXPECT_EQ(seconds_per_unit("us"), 1e-6);
  EXPECT_EQ(seconds_per_unit("min"), 60.0);
  EXPECT_EQ(seconds_per_unit("minutes"), 60.0);
  EXPECT_EQ(seconds_per_unit("h"), 3600.0);
  EXPECT_EQ(seconds_per_unit("d"), 86400.0);
  EXPECT_TRUE(std::isnan(seconds_per_unit("furlong")));
  EXPECT_TRUE(std::isnan(seconds_per_unit("")));
}

TEST(TimeUnit, AnUnknownUnitIsAConfigErrorNamingIt) {
  EXPECT_NO_THROW(check_time_unit("min", "--unit"));
  try {
    check_time_unit("steps", "the result measures time in");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "time in 'steps', which is not a time unit; expected one of s, ms"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace perfit
