#!/usr/bin/env python3
"""perfit fit under mpiexec: sync runs repeat bit for bit, async finishes, bad input on the
ranks ends the job with a clear message and a non-zero exit (never a hang).

usage: mpi_cli_test.py PERFIT_EXE WORKDIR MPIEXEC
"""
import json
import os
import subprocess
import sys

perfit, work, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
failures = []


def mpirun(n, *args, timeout=120):
    cmd = [mpiexec, "-n", str(n), "--oversubscribe", perfit, *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=timeout)


subprocess.run([perfit, "synth", "--out", "m.h5", "--rows", "4000", "--set", "/mxnet/vgg16"],
               check=True, cwd=work, stdout=subprocess.DEVNULL)
common = ["fit", "--data", "m.h5", "--set", "/mxnet/vgg16", "--max-generations", "80",
          "--migration-interval", "10", "--json", "--progress-every", "0"]
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

# Bad input on every rank: one clear message (per rank), exit code of the class, no hang.
r = mpirun(2, "fit", "--data", "missing.h5", "--set", "/a/b", "--out", "x.h5", timeout=60)
if r.returncode == 0 or "does not exist" not in r.stderr:
    failures.append(f"missing data under mpiexec: exit {r.returncode}\n{r.stderr[-1500:]}")
r = mpirun(3, *common, "--out", "x.h5", "--ranks-per-island", "2", timeout=60)
if r.returncode == 0 or "do not split into islands" not in r.stderr:
    failures.append(f"3 ranks / 2 per island: exit {r.returncode}\n{r.stderr[-1500:]}")
if os.path.exists(os.path.join(work, "x.h5")):
    failures.append("a failed run left x.h5")

if failures:
    print("FAILED:\n" + "\n".join(failures))
    sys.exit(1)
print("mpi cli: all checks passed")
