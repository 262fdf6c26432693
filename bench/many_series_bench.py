#!/usr/bin/env python3
"""Issue #25's store and scale targets: an Extra-P text file of N call paths x 2 metrics
(time and bytes; one parameter p = 2..32, 5 repetitions, hypotheses from Extra-P's building
blocks, 2% noise: bench/peers/extrap_compare.py's series), then
  - `perfit import` (wall), the store's size against the raw bytes of its values (8 per value);
  - `perfit inspect` (the summary) and `perfit inspect --set` of one set with its integrity
    check (wall);
  - `perfit batch` of one `select: {models: [pmnf-search]}` entry over every set, on 1 rank and
    under `mpiexec -n 2`, one thread per rank (--threads 1: ranks against ranks) (wall; each
    rank's peak resident memory, VmHWM polled from /proc);
    the two runs must choose the same hypotheses;
  - SIGTERM to both ranks of a 2-rank selection at 40% (Slurm's preemption): seconds to the
    checkpointed exit (75), then --resume, whose selection.csv must equal the uninterrupted one
    (a selection over before its progress line says 40%, or before the signal, gives -).

usage: many_series_bench.py --perfit PATH [--paths 100000] [--seed 1] [--work DIR] [--no-1rank] [--repeat N]
Last line: sigterm_stop_s= import_s= store_vs_raw= inspect_s= open_one_s= select_1rank_s= select_2ranks_s=
           ranks_2_vs_1= peak_rank_mb=<the largest peak of any rank, either run>
"""
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

import harness  # beside this file  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import extrap_compare  # noqa: E402  (its call paths)


def write_paths(path, n, seed):
    """Two metrics of n call paths: the second block of regions under METRIC bytes."""
    rng = np.random.default_rng(seed)
    _, time_text = extrap_compare.make_paths(n, 0.02, rng)
    _, bytes_text = extrap_compare.make_paths(n, 0.02, rng)
    body = bytes_text.split("\n", 2)[2].replace("METRIC time", "METRIC bytes")
    with open(path, "w") as f:
        f.write(time_text)
        f.write(body)
    return 2 * n * len(extrap_compare.POINTS) * 5  # values


def peaks_of(pids):
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        out[pid] = int(line.split()[1]) / 1024.0
        except OSError:
            pass
    return out


def perfit_pids(root):
    """root and its descendants whose command is perfit (parents from /proc/*/stat)."""
    parent, name = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        close = stat.rindex(")")
        name[int(d)] = stat[stat.index("(") + 1:close]
        parent[int(d)] = int(stat[close + 2:].split()[1])
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        todo += [c for c, pp in parent.items() if pp == pid]
        if name.get(pid, "").startswith("perfit"):
            found.append(pid)
    return found


def run_timed(cmd, cwd, env=None, poll_memory=False):
    """cmd run to its end: (wall seconds, stdout, stderr, each perfit process's peak memory (MB)
    when asked, the epoch time it was launched at)."""
    launched = time.time()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peaks = {}
    if poll_memory:
        while p.poll() is None:
            for pid, mb in peaks_of(perfit_pids(p.pid)).items():
                peaks[pid] = max(peaks.get(pid, 0.0), mb)
            time.sleep(0.05)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err[-2000:]}")
    return wall, out, err, sorted(peaks.values(), reverse=True), launched


def timed(cmd, cwd, env=None, poll_memory=False):
    """Wall seconds, stdout, and each perfit process's peak memory (MB) when asked."""
    wall, out, _, peaks, _ = run_timed(cmd, cwd, env, poll_memory)
    return wall, out, peaks


# Rank 0's log lines (src/core/logging.cpp: "%H:%M:%S.%e [%n] %l %v"), local time of day.
LOG_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) \[r0\] \w+ (batch|select): ", re.M)


def phases(err, launched, wall):
    """A `perfit batch` selection's wall by its parts, from rank 0's log: (start, selecting, end)
    seconds: launch to the `batch:` line (MPI, the store opened, the plan), to the last
    `select:` progress line (the sets selected), to the exit (the outputs written). The start and
    end are what the ranks cannot share; None when the lines are not there."""
    day = time.localtime(launched)
    base = day.tm_hour * 3600 + day.tm_min * 60 + day.tm_sec + launched % 1
    at = {}
    for m in LOG_LINE.finditer(err):
        h, mi, s, ms, what = m.groups()
        at.setdefault(what, []).append((int(h) * 3600 + int(mi) * 60 + int(s) + int(ms) / 1000 - base) % 86400)
    if "batch" not in at or "select" not in at:
        return None
    start, selected = at["batch"][0], at["select"][-1]
    return start, selected - start, wall - selected


def select(perfit, work, ranks, threads=1, poll_memory=True):
    """`perfit batch` of the selection on `ranks` ranks of `threads` threads each (1: how the rank
    counts compare; 0: perfit's default, one per CPU the rank may use). poll_memory: each perfit
    process's peak read from /proc every 50 ms (a walk of /proc that takes CPU time from the
    ranks: off where only the wall time counts). Returns (wall, peaks, chosen hypotheses, the wall
    by its parts: phases())."""
    out = os.path.join(work, f"sel{ranks}")
    shutil.rmtree(out, ignore_errors=True)
    with open(os.path.join(work, "select.yaml"), "w") as f:
        f.write("data: paths.h5\nfits:\n  - sets: ['/x/*/*']\n    select: {models: [pmnf-search]}\n")
    env, launch = harness.ENV, harness.launch(ranks)
    wall, _, err, peaks, launched = run_timed([*launch, perfit, "batch", "--manifest", "select.yaml", "--out", out,
                                               "--threads", str(threads)], work, env, poll_memory)
    with open(os.path.join(out, "selection.csv")) as f:
        chosen = {r["set"]: r["hypothesis"] for r in csv.DictReader(f) if r["status"] == "ok"}
    return wall, peaks, chosen, phases(err, launched, wall)


def in_turn(perfit, work, repeat, one_rank, poll_memory=True):
    """The selection on 2 ranks and on 1 taken in turn `repeat` times: (runs on 2, runs on 1),
    each select()'s (wall, peaks, chosen, phases). This machine's two cores are shared with other
    guests, whose load comes and goes within minutes (one selection of 10^6 sets on 2 ranks took
    48.5 s and 64.0 s within ten minutes): a single pair's ratio measures the host as much as
    perfit, so the best of each is compared and the median of the pairs printed beside it."""
    runs2, runs1 = [], []
    for _ in range(repeat):
        runs2.append(select(perfit, work, 2, poll_memory=poll_memory))
        if one_rank:
            runs1.append(select(perfit, work, 1, poll_memory=poll_memory))
    return runs2, runs1


def median_ratio(runs2, runs1):
    """The median of the ratios of the runs taken in turn (the k-th on 2 ranks over the k-th on 1):
    printed beside the ratio of the best runs, so that a reader sees how far the host moved it."""
    ratios = sorted(a[0] / b[0] for a, b in zip(runs2, runs1))
    return ratios[len(ratios) // 2]


def preempted(perfit, work, sets, reference):
    """Slurm's preemption in the middle of the 2-rank selection: SIGTERM to every rank once 40%
    of the sets are selected; seconds from the signal to the job's end (exit 75: checkpointed),
    then `--resume`, whose selection.csv must equal the uninterrupted run's byte for byte."""
    out = os.path.join(work, "preempted")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [*harness.launch(2), perfit, "batch", "--manifest", "select.yaml", "--out", out]
    p = subprocess.Popen(cmd, cwd=work, env=harness.ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sent = None
    for line in p.stdout:  # progress lines: "select: N/TOTAL sets"
        done = line.split("select: ", 1)[1].split("/", 1)[0] if "select: " in line else ""
        if sent is None and done.isdigit() and int(done) >= 0.4 * sets:
            for pid in perfit_pids(p.pid):
                os.kill(pid, signal.SIGTERM)
            sent = time.perf_counter()
    p.wait()
    if sent is None or p.returncode == 0:
        return None, True  # over before a progress line said 40%, or before the signal came
    if p.returncode != 75:
        sys.exit(f"preempted selection: exit {p.returncode}, expected 75 (checkpointed)")
    stop = time.perf_counter() - sent
    timed([*cmd, "--resume"], work, harness.ENV)
    with open(os.path.join(out, "selection.csv")) as a, open(reference) as b:
        return stop, a.read() == b.read()


def main():
    ap = harness.parser(__doc__, expect=False)
    ap.add_argument("--paths", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work")
    ap.add_argument("--no-1rank", action="store_true", help="skip the 1-rank selection (ranks_2_vs_1 is then -)")
    ap.add_argument("--repeat", type=int, default=1, help="selections per rank count, in turn; the best of each is compared")
    args = ap.parse_args()
    perfit = os.path.abspath(args.perfit)
    work = args.work or tempfile.mkdtemp(prefix="many_series_")
    os.makedirs(work, exist_ok=True)
    values = write_paths(os.path.join(work, "paths.txt"), args.paths, args.seed)
    store = os.path.join(work, "paths.h5")
    if os.path.exists(store):
        os.remove(store)
    imp, _, imp_peak = timed([perfit, "import", "paths.txt", "--format", "extrap", "--out", "paths.h5", "--set", "/x"],
                             work, poll_memory=True)
    ratio = os.path.getsize(store) / (8.0 * values)
    ins, summary, _ = timed([perfit, "inspect", "paths.h5"], work)
    one, _, _ = timed([perfit, "inspect", "paths.h5", "--set", f"/x/r{args.paths // 2}/time"], work)
    runs2, runs1 = in_turn(perfit, work, args.repeat, not args.no_1rank)
    s2, peaks2, chosen2, _ = min(runs2, key=lambda r: r[0])
    peaks2 = [max(r[1][i] for r in runs2 if len(r[1]) > i) for i in range(max(len(r[1]) for r in runs2))]
    s1, peaks1, chosen1, _ = min(runs1, key=lambda r: r[0]) if runs1 else (None, [], None, None)
    if runs1:
        peaks1 = [max(r[1][0] for r in runs1 if r[1])] if any(r[1] for r in runs1) else []
    if len(runs2) > 1:
        print(f"2 ranks {' '.join(f'{r[0]:.2f}' for r in runs2)} s; 1 rank {' '.join(f'{r[0]:.2f}' for r in runs1) or '-'} s"
              + (f" (median of the pairs' ratios {median_ratio(runs2, runs1):.2f})" if runs1 else ""))
    if chosen1 is not None and chosen1 != chosen2:
        sys.exit("1 rank and 2 ranks chose other hypotheses")
    sets = 2 * args.paths
    print(f"{args.paths} call paths x 2 metrics ({sets} sets of 25 rows, {values} values, {8 * values / 1e6:.1f} MB raw)")
    print(f"import {imp:.2f} s (peak {imp_peak[0] if imp_peak else 0:.0f} MB); store {os.path.getsize(store) / 1e6:.1f} MB "
          f"= {ratio:.2f}x the raw values; inspect {ins:.2f} s; inspect --set one set {one:.2f} s")
    print(f"batch select pmnf-search: 2 ranks {s2:.2f} s ({sets / s2:.0f} sets/s), peak per process "
          f"{', '.join(f'{m:.0f}' for m in peaks2)} MB"
          + ("" if s1 is None else f"; 1 rank {s1:.2f} s, peak {peaks1[0] if peaks1 else 0:.0f} MB"))
    stop, equal = preempted(perfit, work, sets, os.path.join(work, "sel2", "selection.csv"))
    if stop is not None:
        print(f"SIGTERM to both ranks at 40% of the selection: checkpointed and ended {stop:.2f} s later (exit "
              f"75); resumed, selection.csv {'equals' if equal else 'DIFFERS from'} the uninterrupted run's")
    if not equal:
        sys.exit("the resumed selection differs from the uninterrupted one")
    peak = max(peaks1 + peaks2) if peaks1 + peaks2 else 0.0
    print(f"sigterm_stop_s={'-' if stop is None else f'{stop:.2f}'} import_s={imp:.2f} store_vs_raw={ratio:.2f} inspect_s={ins:.2f} open_one_s={one:.2f} "
          f"select_1rank_s={'-' if s1 is None else f'{s1:.2f}'} select_2ranks_s={s2:.2f} "
          f"ranks_2_vs_1={'-' if s1 is None else f'{s2 / s1:.2f}'} peak_rank_mb={peak:.0f}")


if __name__ == "__main__":
    main()
