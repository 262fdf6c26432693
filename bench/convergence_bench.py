#!/usr/bin/env python3
"""Time and generations to a target cost: best/1/bin (the minimal DE baseline) against
perfit's adaptive strategies, serial and on 2 MPI islands, all on the same set and model.

The target is (1 + MARGIN) x the optimum, found first by a long polished fit. Every run uses
--no-polish (DE alone must reach it) and the same seeds; the median over seeds is printed.

usage: convergence_bench.py --perfit PERFIT [--rows 1e5] [--margin 0.01] [--seeds 3]
Last line: generations_to_target <case>=<median generations, or never(k/n) if not all seeds got there> ...
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import harness  # beside this file

ap = harness.parser(__doc__, expect=False)
ap.add_argument("--rows", default="1e5", help="rows of the synthetic set")
ap.add_argument("--margin", type=float, default=0.01, help="the target: (1 + MARGIN) x the optimum")
ap.add_argument("--seeds", type=int, default=3, help="seeds per case (the median is printed)")
args = ap.parse_args()
perfit, rows, margin, seeds = os.path.abspath(args.perfit), args.rows, args.margin, args.seeds
env = harness.ENV


def fit(tmp, *args, ranks=1):
    cmd = harness.launch(ranks) + [
        perfit, "fit", "--data", "c.h5", "--set", "/tensorflow/vgg16", "--out", "r.h5", "--force",
        "--json", "--progress-every", "0", *args]
    r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout)


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([perfit, "synth", "--out", "c.h5", "--rows", rows, "--set", "/tensorflow/vgg16"],
                   check=True, cwd=tmp, stdout=subprocess.DEVNULL)
    best = fit(tmp, "--strategy", "jso", "--max-generations", "3000")["cost"]
    target = best * (1 + margin)
    print(f"optimum {best:.8g}; target {target:.8g} (+{100 * margin:g}%), {rows} rows, seeds 1..{seeds}")
    cases = [("best1bin", ["--strategy", "best1bin"], 1),
             ("rand1bin", ["--strategy", "rand1bin"], 1),
             ("lshade", ["--strategy", "lshade"], 1),
             ("jso", ["--strategy", "jso"], 1),
             ("lshade x2 islands", ["--strategy", "lshade", "--migration-interval", "10"], 2)]
    medians, reached_all = {}, {}
    for name, args, ranks in cases:
        gens, secs, reached = [], [], 0
        for s in range(1, seeds + 1):
            j = fit(tmp, *args, "--seed", str(s), "--target-cost", repr(target), "--no-polish",
                    "--max-generations", "4000", ranks=ranks)
            gens.append(j["generations"])
            secs.append(j["de_seconds"])
            reached += j["stop_reason"] == "target_cost"
        medians[name] = (statistics.median(gens), statistics.median(secs))
        reached_all[name] = (reached, seeds)
        print(f"{name:18s} reached {reached}/{seeds}  median generations {medians[name][0]:7.0f}  "
              f"median DE seconds {medians[name][1]:6.2f}")
    parts = []
    for name in medians:
        r, n = reached_all[name]
        key = name.replace(" ", "_")
        parts.append(f"{key}={medians[name][0]:.0f}" if r == n else f"{key}=never({r}/{n})")
    print("generations_to_target " + " ".join(parts))
