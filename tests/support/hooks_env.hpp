// Sets PERFIT_TEST_HOOKS (core/test_hooks.hpp) for one test and restores the process's value
// after it.
#pragma once

#include <cstdlib>
#include <string>

namespace perfit::testing_support {

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
  HooksEnv(const HooksEnv&) = delete;
  HooksEnv& operator=(const HooksEnv&) = delete;

 private:
  std::string old_;
  bool had_ = false;
};

}  // namespace perfit::testing_support
