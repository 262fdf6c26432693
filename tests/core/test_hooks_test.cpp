#include "perfit/core/test_hooks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "perfit/core/error.hpp"
#include "support/hooks_env.hpp"

namespace perfit {
namespace {

using testing_support::HooksEnv;

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
