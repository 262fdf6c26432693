# Every dependency is a Debian 12 package (scripts/setup.sh installs them).
find_package(MPI 3.1 REQUIRED COMPONENTS C CXX)
# Serial HDF5 on purpose (docs/design.md): ranks read disjoint row slices of a read-only
# store independently and only one rank writes a result, so MPI-IO buys nothing and the
# serial build keeps mpi.h out of io/ and lets `perfit import/inspect/synth` run anywhere.
find_package(HDF5 1.10 REQUIRED COMPONENTS C)
# libdeflate: the chunks perfit deflates itself (io/deflated_chunks), 3-4x zlib's speed at
# level 1 on a selection store's text and numbers, in the zlib format HDF5's filter inflates;
# and the CRC-32s of sealed files and selection journals (zlib's values, twice its speed).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
if(HDF5_IS_PARALLEL)
  message(FATAL_ERROR "perfit wants serial HDF5, but FindHDF5 picked a parallel build "
          "(${HDF5_INCLUDE_DIRS}). Configure with -DHDF5_C_COMPILER_EXECUTABLE=$(which h5cc).")
endif()
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(spdlog 1.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(yaml-cpp 0.7 REQUIRED)  # target is plain `yaml-cpp` in 0.7
# jemalloc as the executable's malloc: a selection over 10^5 series makes millions of
# short-lived allocations between long-lived ones, and glibc's malloc, fragmented, slowed the
# run within itself to 60% of its first rate (2*10^5 series on 1 rank: 51 s against 31 s;
# docs/performance.md "At scale").
# Not under the sanitizers, whose allocator is the point; not in the Python extension, which
# runs in the interpreter's malloc.
if(PERFIT_JEMALLOC AND NOT PERFIT_SANITIZE)
  find_library(PERFIT_JEMALLOC_LIBRARY NAMES jemalloc REQUIRED)
endif()

# The Python package's extension: Debian's interpreter (where python3-numpy/pandas live, not a
# pyenv python3 earlier on PATH), its headers (python3-dev) and pybind11-dev. Every static
# library then holds position-independent code, since the extension links them.
if(PERFIT_PYTHON_PACKAGE)
  if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 2.6 REQUIRED CONFIG)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
endif()
