#!/usr/bin/env bash
# Installs every Debian 12 package perfit needs to build, test and run its scripts.
# Idempotent: packages already installed are skipped (no apt-get at all when nothing is missing).
#
#   bash scripts/setup.sh            build + test + python deps
#   bash scripts/setup.sh --test     also what the whole test command needs: slurm-wlm and munge
#                                    (the local Slurm of scripts/slurm-local.sh, which the tests
#                                    submit the slurm/ job scripts to), clang and its sanitizer
#                                    and libFuzzer runtime (the sanitize preset, scripts/fuzz.sh),
#                                    llvm-symbolizer (function names in sanitizer reports),
#                                    clang-format (the test command checks the C++ format),
#                                    chromium (the report tests render HTML reports headless),
#                                    jupyter's nbconvert and ipykernel (the tests execute the
#                                    walk-through notebook, docs/examples/walkthrough.ipynb)
#   bash scripts/setup.sh --slurm    slurm-wlm and munge only
#
# Root installs with apt-get. Without root it installs nothing and prints what a cluster user
# should `module load` (or ask their admins for) instead.
set -euo pipefail

want_slurm=0 want_clang=0
for a in "$@"; do
  case "$a" in
    --slurm) want_slurm=1 ;;
    --test) want_slurm=1; want_clang=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$a' (try --help)" >&2; exit 2 ;;
  esac
done

PKGS=(
  build-essential cmake pkg-config git ca-certificates
  libopenmpi-dev openmpi-bin      # Open MPI 4.1 (mpicxx, mpiexec)
  libhdf5-dev hdf5-tools          # serial HDF5 1.10 (docs/design.md says why serial), h5dump
  libdeflate-dev                  # the chunks perfit deflates itself, the CRC-32s of seals and journals
  libeigen3-dev                   # Eigen 3.4
  libspdlog-dev libfmt-dev        # spdlog 1.10 on external fmt 9
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  libjemalloc-dev                 # the executable's malloc (CMakeLists.txt: PERFIT_JEMALLOC)
  libgtest-dev libgmock-dev       # GoogleTest/GoogleMock 1.12
  python3 python3-numpy python3-scipy python3-h5py python3-matplotlib
  python3-pytest                  # the CLI and script tests (tests/app, tests/scripts)
  python3-dev pybind11-dev python3-pandas  # the Python package perfit (docs/python.md)
  python3-venv python3-setuptools python3-wheel  # pip install of the package into a venv (docs/python.md)
)
SLURM_PKGS=(slurm-wlm munge)
# clang 14: ASan/UBSan/LSan and libFuzzer runtimes; llvm: llvm-symbolizer, which sanitizer
# reports need for function names (a fresh Debian 12 has none; clang only recommends it);
# clang-format: the test command checks the C++ against .clang-format (tests/design/format_test.py)
CLANG_PKGS=(clang libclang-rt-14-dev llvm clang-format)
# the report tests render perfit's HTML reports in headless Chromium
BROWSER_PKGS=(chromium)
# the walk-through notebook is executed by the tests: `jupyter nbconvert --execute`, python3 kernel
NOTEBOOK_PKGS=(jupyter-nbconvert python3-ipykernel)
[ "$want_slurm" = 1 ] && PKGS+=("${SLURM_PKGS[@]}")
[ "$want_clang" = 1 ] && PKGS+=("${CLANG_PKGS[@]}" "${BROWSER_PKGS[@]}" "${NOTEBOOK_PKGS[@]}")

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup.sh: all ${#PKGS[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  cat >&2 <<MSG
setup.sh: not root, so nothing was installed. Missing Debian packages:
  ${missing[*]}
On a cluster, load the equivalents instead, e.g.:
  module load gcc/12 cmake/3.25 openmpi/4.1 hdf5/1.10-serial eigen/3.4 python/3 (with numpy, h5py)
and point CMake at spdlog, CLI11, nlohmann_json, yaml-cpp and GTest (CMAKE_PREFIX_PATH).
MSG
  exit 1
fi

# Keep package scripts from starting daemons (munge, slurm) during the install: on machines
# without systemd their init scripts would otherwise run. scripts/slurm-local.sh starts them.
created_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT

echo "setup.sh: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup.sh: done"
