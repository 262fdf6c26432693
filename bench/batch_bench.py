#!/usr/bin/env python3
"""`perfit batch` throughput: 32 small fits (8 synthetic sets x 4 models, ROWS rows each, default
fit options) as one batch on 1 and on 2 ranks, and as 32 separate `perfit fit` processes run back
to back (what a user would script otherwise). Each time is the median of REPEATS runs, measured
side by side in this one run.

  batch time             the batch's own elapsed_seconds (summary.json: from its start on rank 0
                         to the last fit), so that mpiexec's start-up (~0.5 s here) is not
                         counted; the wall time with it is printed too
  fits/s                 32 / batch time
  batch_efficiency_2     (fits/s at 2 ranks) / (2 x fits/s at 1 rank)
  speedup_vs_separate    wall(32 separate fits) / wall(batch on 2 ranks, mpiexec included): the
                         job a user gets for the same two cores; the 1-rank ratio is printed too.

usage: batch_bench.py --perfit PERFIT [--rows 1e4] [--repeats 3]
Last line: batch_efficiency_2_ranks=<x> speedup_vs_separate=<y>
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import claims  # beside this file
import harness

ap = harness.parser(__doc__)
ap.add_argument("--rows", default="1e4", help="rows per synthetic set")
ap.add_argument("--repeats", type=int, default=3, help="runs per case; each time is their median")
args = ap.parse_args()
perfit, rows, repeats = os.path.abspath(args.perfit), args.rows, args.repeats
env = harness.ENV
SETS = ["/mxnet/resnet50", "/mxnet/bert", "/mxnet/vgg16", "/pytorch/resnet50", "/pytorch/bert",
        "/pytorch/vgg16", "/tensorflow/resnet50", "/tensorflow/bert"]
MODELS = ["generic", "amdahl", "usl", "gustafson"]


def timed(cmd, cwd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return time.perf_counter() - t0


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([perfit, "synth", "--out", "s.h5", "--rows", rows, *sum([["--set", s] for s in SETS], [])],
                   check=True, cwd=tmp, stdout=subprocess.DEVNULL)
    with open(os.path.join(tmp, "m.yaml"), "w") as f:
        f.write(f"data: s.h5\nfits:\n  - sets: {SETS}\n    models: {MODELS}\n")
    walls = {"batch1": [], "batch2": [], "separate": []}
    inside = {"batch1": [], "batch2": []}

    def elapsed(out):
        with open(os.path.join(tmp, out, "summary.json")) as f:
            return json.load(f)["elapsed_seconds"]

    for rep in range(repeats):
        walls["batch1"].append(timed([perfit, "batch", "--manifest", "m.yaml", "--out", f"b1_{rep}"], tmp))
        inside["batch1"].append(elapsed(f"b1_{rep}"))
        walls["batch2"].append(timed([*harness.mpiexec(2), perfit, "batch", "--manifest", "m.yaml",
                                      "--out", f"b2_{rep}"], tmp))
        inside["batch2"].append(elapsed(f"b2_{rep}"))
        t0 = time.perf_counter()
        for s in SETS:
            for m in MODELS:
                timed([perfit, "fit", "--data", "s.h5", "--set", s, "--model", m, "--progress-every", "0",
                       "--out", f"sep_{rep}_{s.strip('/').replace('/', '__')}__{m}.h5"], tmp)
        walls["separate"].append(time.perf_counter() - t0)
    w = {k: statistics.median(v) for k, v in walls.items()}
    b = {k: statistics.median(v) for k, v in inside.items()}
    n = len(SETS) * len(MODELS)
    for k in ["batch1", "batch2"]:
        print(f"{k:9s} batch {b[k]:6.3f} s  {n / b[k]:6.1f} fits/s  wall {w[k]:6.2f} s  "
              f"(batch times: {', '.join(f'{x:.3f}' for x in inside[k])})")
    print(f"separate  wall  {w['separate']:6.2f} s  {n / w['separate']:6.1f} fits/s  "
          f"(runs: {', '.join(f'{x:.2f}' for x in walls['separate'])})")
    eff = (n / b["batch2"]) / (2 * n / b["batch1"])
    print(f"fits={n} rows={rows} repeats={repeats} speedup_vs_separate_1_rank={w['separate'] / w['batch1']:.3f}")
    claims.last_line({"batch_efficiency_2_ranks": eff, "speedup_vs_separate": w["separate"] / w["batch2"]}, args.expect)
