#!/usr/bin/env python3
"""perfit fit under mpiexec: sync runs repeat bit for bit, async finishes, bad input on the
ranks ends the job with a clear message and a non-zero exit (never a hang).

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import json
import os
import subprocess

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []


def mpirun(n, *args, timeout=120):
    return subprocess.run(ranks.command(perfit, mpiexec, n, *args), capture_output=True, text=True, cwd=work,
                          env=ranks.ENV, timeout=timeout)


subprocess.run([perfit, "synth", "--out", "m.h5", "--rows", "4000", "--set", "/mxnet/vgg16"],
               check=True, cwd=work, stdout=subprocess.DEVNULL)
common = ["fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--max-generations", "80",
          "--migration-interval", "10", "--json", "--progress-every", "0", "--ranks-per-island", "1"]

# ---- the default layout ----
def test_the_default_layout():
    # The default layout: generic leaves a 1-D search (variable projection), so the ranks form one
    # island and split the rows; a 6-D search (separable off) gets an island per rank.
    for extra, want in [([], "islands=1 ranks_per_island=2"), (["--separable", "off"], "islands=2 ranks_per_island=1")]:
        r = mpirun(2, "fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--out", f"auto{len(extra)}.h5",
                   "--max-generations", "30", "--progress-every", "0", *extra)
        if r.returncode != 0 or want not in r.stderr:
            failures.append(f"default layout {extra}: exit {r.returncode}, no '{want}'\n{r.stderr[-1500:]}")


# ---- sync runs repeat bit for bit; async and shared islands finish ----
def test_sync_runs_repeat_bit_for_bit_async_and_shared_islands_finish():
    runs = []
    for k in range(2):
        r = mpirun(2, *common, "--out", f"s{k}.h5", "--topology", "random")
        if r.returncode != 0:
            failures.append(f"sync run {k}: exit {r.returncode}\n{r.stderr[-2000:]}")
            continue
        runs.append(json.loads(r.stdout))
    if len(runs) == 2 and runs[0]["params"] != runs[1]["params"]:
        failures.append(f"sync runs differ: {runs[0]['params']} vs {runs[1]['params']}")
    if runs and "epoch=" not in r.stderr and "islands=2" not in r.stderr:
        failures.append("no island log lines on rank 0")

    r = mpirun(4, *common, "--out", "a.h5", "--mode", "async", "--topology", "ring-bi")
    if r.returncode != 0 or json.loads(r.stdout or "{}").get("generations", 0) < 1:
        failures.append(f"async 4 ranks: exit {r.returncode}\n{r.stderr[-2000:]}")

    r = mpirun(2, *common, "--out", "rp.h5", "--ranks-per-island", "2")
    if r.returncode != 0:
        failures.append(f"ranks-per-island 2: exit {r.returncode}\n{r.stderr[-2000:]}")


# ---- progress lines of islands ----
def test_progress_lines_of_islands():
    # Async with progress lines: the island spread is computed, no idle lines after convergence.
    r = mpirun(2, "fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--max-generations", "120",
               "--migration-interval", "5", "--mode", "async", "--out", "a2.h5", "--progress-every", "1",
               "--no-compress", "--separable", "off",  # a 6-D search: islands differ for a while
               "--slow-island", "1", "--slow-ms", "3")
    epochs = [l for l in r.stderr.splitlines() if "epoch=" in l]
    if r.returncode != 0 or not epochs:
        failures.append(f"async with progress: exit {r.returncode}\n{r.stderr[-1500:]}")
    if epochs and all("island_spread=0 " in l for l in epochs):
        failures.append("async epoch lines all read island_spread=0:\n" + "\n".join(epochs[:5]))
    if any("evals/s=0 " in l for l in epochs):
        failures.append("async epoch lines after convergence read evals/s=0")
    # --progress-every 0 silences epoch lines too.
    r = mpirun(2, *common, "--out", "q.h5", "--mode", "async")
    if "epoch=" in r.stderr:
        failures.append("--progress-every 0 printed epoch lines")


# ---- bad input on every rank ----
def test_bad_input_on_every_rank():
    # Bad input on every rank: one clear message printed once, exit code of the class, no hang.
    def one_error(r, needle, code, what):
        lines = [l for l in r.stderr.splitlines() if l.startswith("perfit: error")]
        if r.returncode != code or len(lines) != 1 or needle not in lines[0]:
            failures.append(f"{what}: exit {r.returncode} (expected {code}), {len(lines)} error "
                            f"lines (expected 1 with {needle!r})\n{r.stderr[-1500:]}")


    one_error(mpirun(2, "fit", "--data", "missing.h5", "--set", "/a/b", "--out", "x.h5", timeout=60),
              "does not exist", 6, "missing data under mpiexec")
    one_error(mpirun(4, "fit", "--data", "m.h5", "--set", "/a/b", "--out", "x.h5", timeout=60),
              "has no set '/a/b'", 3, "missing set under mpiexec -n 4")
    one_error(mpirun(2, "fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--out", "m.h5", timeout=60),
              "is the input", 2, "output = input under mpiexec")
    one_error(mpirun(2, "fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--bogus", timeout=60),
              "--bogus", 2, "unknown flag under mpiexec")
    one_error(mpirun(3, *common, "--out", "x.h5", "--ranks-per-island", "2", timeout=60),
              "do not split into islands", 2, "3 ranks / 2 per island")
    if os.path.exists(os.path.join(work, "x.h5")):
        failures.append("a failed run left x.h5")
