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
    # Debian 12's GCC 12.2 on an AVX-512 host (-march=native, -O2 and -O3) stores the 8 doubles
    # of std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0} as 1.0 in every lane: copying a 512-bit
    # constant whose second half is zeros, it takes it for a splat of its first element (seen in
    # a unit test's column here, 2026-12-05; also {2,2,2,2,2,2,0,0}, 16 floats, 8 longs). Copies
    # and stores of at most 256 bits store them right; the vectorised loops keep 512 bits
    # (-mprefer-vector-width=256 fixed it too, at 18% of the evaluator's speed).
    target_compile_options(perfit_hotpath INTERFACE
      $<$<CONFIG:Release>:-mmove-max=256 -mstore-max=256>)
  endif()
endif()

# Sanitizers and fuzzing instrumentation travel with perfit_core (PUBLIC), so every library,
# test and executable built on it gets them, and nothing outside the project does.
add_library(perfit_sanitize INTERFACE)
if(PERFIT_SANITIZE)
  # -fno-sanitize-recover: a UBSan report ends the test with a failure instead of a log line.
  target_compile_options(perfit_sanitize INTERFACE -fsanitize=address,undefined
                         -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  # Line tables are enough for symbolised reports and build far faster than full -g.
  target_compile_options(perfit_sanitize INTERFACE
                         $<IF:$<CXX_COMPILER_ID:Clang>,-gline-tables-only,-g1>)
  target_link_options(perfit_sanitize INTERFACE -fsanitize=address,undefined)
  # Default options and the Open MPI leak suppressions, compiled into executables only.
  file(READ ${PROJECT_SOURCE_DIR}/tests/sanitizer/lsan.supp PERFIT_LSAN_SUPPRESSIONS)
  configure_file(${PROJECT_SOURCE_DIR}/src/core/sanitizer_defaults.cpp.in
                 ${PROJECT_BINARY_DIR}/generated/sanitizer_defaults.cpp @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/tests/sanitizer/lsan.supp)
  target_sources(perfit_sanitize INTERFACE
    $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:${PROJECT_BINARY_DIR}/generated/sanitizer_defaults.cpp>)
endif()
if(PERFIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "PERFIT_FUZZ needs clang's libFuzzer: configure with "
            "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ (bash scripts/setup.sh --test "
            "installs clang and libclang-rt-14-dev)")
  endif()
  # Coverage feedback for libFuzzer from perfit's own code; the fuzz targets add
  # -fsanitize=fuzzer (libFuzzer's main) themselves.
  target_compile_options(perfit_sanitize INTERFACE -fsanitize=fuzzer-no-link)
endif()

# Precompiled headers: the standard and third-party headers that most translation units of a
# large target parse anyway (Eigen, nlohmann/json, CLI11, GoogleTest), parsed once per target;
# parsing was about a third of a clean build's compile time. A target gets only headers its
# own layer may include (docs/design.md): every file of the target sees them. On by default
# with clang (the sanitizer build, the longer of the test command's two): GCC 12 reads the
# standard library's code from a precompiled header as if it were not a system header's, and
# its false positives on std::string at -O3 (-Warray-bounds, -Wstringop-overflow: the kin of
# -Wrestrict above) then stop a -Werror build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(_perfit_pch_default ON)
else()
  set(_perfit_pch_default OFF)
endif()
option(PERFIT_PCH "Precompile the common headers of each large target" ${_perfit_pch_default})
set(PERFIT_PCH_STD <algorithm> <cmath> <cstdint> <functional> <map> <memory> <optional>
    <sstream> <string> <unordered_map> <utility> <vector>)
function(perfit_precompile target)
  if(PERFIT_PCH)
    target_precompile_headers(${target} PRIVATE ${PERFIT_PCH_STD} ${ARGN})
  endif()
endfunction()
