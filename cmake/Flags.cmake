# Warnings and optimisation live in INTERFACE targets linked PRIVATE, never in CMAKE_CXX_FLAGS.
add_library(perfit_warnings INTERFACE)
target_compile_options(perfit_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
                       -Woverloaded-virtual -Wformat=2)
# GCC 12 at -O3 reports std::string concatenation as overlapping memcpy (GCC bug 105329).
target_compile_options(perfit_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
if(PERFIT_WERROR)
  target_compile_options(perfit_warnings INTERFACE -Werror)
endif()

# The fit spends nearly all its time in the evaluator: Release builds use -O3 and the host's
# vector ISA there (Eigen then vectorises exp/log without -ffast-math, which would break the
# NaN/inf checks the cost relies on). PERFIT_PORTABLE gives a binary that runs on any x86-64.
add_library(perfit_hotpath INTERFACE)
if(NOT PERFIT_PORTABLE)
  target_compile_options(perfit_hotpath INTERFACE $<$<CONFIG:Release>:-O3 -march=native>)
endif()

if(PERFIT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
