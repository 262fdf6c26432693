#include "perfit/core/test_hooks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "perfit/core/error.hpp"

namespace perfit {
namespace {

// Sets PERFIT_TEST_HOOKS for one test and restores the process's value after it.
class HooksEnv {
 public:
  explicit HooksEnv(const char* value) {
    if (const char* old = std::getenv("PERFIT_TEST_HOOKS")) old_ = old, had_ = true;
    if (value) {
      setenv("PERFIT_TEST_HOOKS", value, 1);
    } else {
      unsetenv("PERFIT_TEST_HOOKS");
    }
  }
  ~HooksEnv() {
    if (had_) {
      setenv("PERFIT_TEST_HOOKS", old_.c_str(), 1);
    } else {
      unsetenv("PERFIT_TEST_HOOKS");
    }
  }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(TestHooks, UnsetMeansNoHook) {
  HooksEnv env(nullptr);
  EXPECT_EQ(test_hook(kCheckpointDelayMs), 0.0);
}

TEST(TestHooks, ANamedValueIsRead) {
  HooksEnv env("checkpoint_delay_ms=800");
  EXPECT_EQ(test_hook(kCheckpointDelayMs), 800.0);
}

TEST(TestHooks, AnUnknownOrMalformedEntryIsRefusedByName) {
  for (const char* bad : {"checkpoint_delay=800", "checkpoint_delay_ms", "checkpoint_delay_ms=-1",
                          "checkpoint_delay_ms=abc"}) {
    HooksEnv env(bad);
    try {
      test_hook(kCheckpointDelayMs);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("PERFIT_TEST_HOOKS"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace perfit
