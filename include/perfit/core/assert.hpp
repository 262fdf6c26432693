// PERFIT_ASSERT: programmer bugs, not user errors. Always on (it never sits in a hot loop):
// a broken invariant aborts with the file and line rather than computing a wrong fit.
#pragma once

namespace perfit::detail {
[[noreturn]] void assert_fail(const char* expr, const char* file, int line, const char* msg);
}

#define PERFIT_ASSERT(cond, msg)                                                \
  do {                                                                          \
    if (!(cond)) ::perfit::detail::assert_fail(#cond, __FILE__, __LINE__, msg); \
  } while (0)
