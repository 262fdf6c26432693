# Warnings and optimisation live in INTERFACE targets linked PRIVATE, never in CMAKE_CXX_FLAGS.
add_library(perfit_warnings INTERFACE)
target_compile_options(perfit_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
                       -Woverloaded-virtual -Wformat=2)
# GCC 12 false positive: at -O3 std::string concatenation looks like an overlapping memcpy
# (GCC bug 105329).
target_compile_options(perfit_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
if(PERFIT_WERROR)
  target_compile_options(perfit_warnings INTERFACE -Werror)
endif()

# The fit spends nearly all its time in the evaluator: Release builds use -O3 and the host's
# vector ISA there (Eigen then vectorises exp/log without -ffast-math, which would break the
# NaN/inf checks the cost relies on). PERFIT_PORTABLE gives a binary that runs on any x86-64.
add_library(perfit_hotpath INTERFACE)
# `omp simd reduction` lets the cost sums vectorise without -ffast-math (no OpenMP runtime).
target_compile_options(perfit_hotpath INTERFACE -fopenmp-simd)
if(NOT PERFIT_PORTABLE)
  target_compile_options(perfit_hotpath INTERFACE $<$<CONFIG:Release>:-O3 -march=native>)
  # GCC < 12.3's AVX-512 intrinsic headers (_mm512_undefined_pd), inlined into Eigen's
  # vectorised code under -march=native, read as uninitialised (GCC bug 105593). The
  # suppression travels with the flag that triggers it.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 12.3)
    target_compile_options(perfit_hotpath INTERFACE
      $<$<CONFIG:Release>:-Wno-uninitialized -Wno-maybe-uninitialized>)
  endif()
endif()

if(PERFIT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
