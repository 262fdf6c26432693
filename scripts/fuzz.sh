#!/usr/bin/env bash
# Fuzzes perfit's readers of user input with libFuzzer (tests/fuzz), starting from the
# checked-in seed corpus (tests/fuzz/corpus/<target>) and every regression input.
#
#   bash scripts/fuzz.sh [TARGET...] [--runs N] [--seconds S] [--build DIR] [--no-build]
#
#   TARGET       expression csv extrap extrap_json extrap_jsonl model_yaml config_yaml manifest store result
#                h5_store (default: all)
#   --runs N     executions per target (default 100000; 0 = until --seconds)
#   --seconds S  time limit per target (default 600)
#   --long       a campaign: 1,000,000 executions per target, no time limit short of a day
#   --build DIR  a clang build with -DPERFIT_FUZZ=ON (default build-san, the test command's
#                `sanitize` preset: clang, ASan + UBSan; configured if missing, which needs
#                `bash scripts/setup.sh --test`, and brought up to date)
#   --no-build   run the targets as built (what the test command does)
#
# New interesting inputs go to DIR/fuzz/<target>/corpus. A crash, leak, hang or uncaught
# exception stops the target, writes DIR/fuzz/<target>/crash-* (or timeout-*, leak-*) and
# fails: copy that file to tests/fuzz/regressions/<target>/, fix the reader, and the input is
# replayed by every later test run. Exit status: 0 when no target found anything.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
all=(expression csv extrap extrap_json extrap_jsonl model_yaml config_yaml manifest store result h5_store)
targets=() runs=100000 seconds=600 build="$root/build-san" rebuild=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --long) runs=1000000; seconds=86400; shift ;;
    --build) build="$2"; shift 2 ;;
    --no-build) rebuild=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) [[ " ${all[*]} " == *" $1 "* ]] || { echo "fuzz.sh: unknown target '$1'; targets: ${all[*]}" >&2; exit 2; }
       targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if [ ! -f "$build/CMakeCache.txt" ]; then
  command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found: run bash scripts/setup.sh --test" >&2; exit 2; }
  [ "$build" = "$root/build-san" ] || { echo "fuzz.sh: '$build' is not configured; configure it with -DPERFIT_FUZZ=ON (clang) or leave out --build" >&2; exit 2; }
  (cd "$root" && cmake --preset sanitize)
fi
if [ "$rebuild" = 1 ]; then
  cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
failed=0
for t in "${targets[@]}"; do
  work="$build/fuzz/$t"
  mkdir -p "$work/corpus"
  inputs=("$root/tests/fuzz/corpus/$t")
  [ -d "$root/tests/fuzz/regressions/$t" ] && inputs+=("$root/tests/fuzz/regressions/$t")
  before=$(find "$work/corpus" -type f | wc -l)
  set +e
  [ "$runs" = 0 ] && runs=-1  # libFuzzer: -1 is unlimited
  "$build/tests/fuzz/fuzz_$t" "$work/corpus" "${inputs[@]}" -runs="$runs" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" >"$work/log.txt" 2>&1
  rc=$?
  set -e
  done_line=$(grep -E '^Done [0-9]+ runs' "$work/log.txt" | tail -1 || true)
  execs=$(grep -E '^stat::number_of_executed_units' "$work/log.txt" | awk '{print $2}' | tail -1)
  after=$(find "$work/corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz_$t: ${execs:-?} executions (${done_line:-no summary}), corpus +$((after - before)) inputs, no finding"
  else
    failed=1
    echo "fuzz_$t: FINDING after ${execs:-?} executions (exit $rc); log: $work/log.txt" >&2
    tail -n 40 "$work/log.txt" >&2
    ls "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-* 2>/dev/null >&2 || true
    echo "fuzz_$t: copy the input above to tests/fuzz/regressions/$t/ and fix the reader" >&2
  fi
done
exit "$failed"
