#include "perfit/core/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace perfit::detail {

void assert_fail(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "perfit: internal error: %s (%s) at %s:%d. Please report this.\n", msg, expr,
               file, line);
  std::abort();
}

}  // namespace perfit::detail
