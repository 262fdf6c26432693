#!/usr/bin/env python3
"""Time to target, side by side in one run: scipy's DE, pagmo2 and `mpiexec -n 2 perfit fit`
(defaults) on the same model, bounds, cost and target, interleaved by seed.

Model (6 constants, all linear bounds):
    c0 + c1*(d/p)*b^(a-1) + (d/(p*b))*(c2 + c3*log2(p) + c4*(p-1)/p)
cost: mean squared relative error; target: 1.5 x the cost of the true constants.
Data: every row a distinct configuration (p, b, d drawn continuously, 1% log-normal noise), so
the evaluator and the search are measured, not compression; then a grid set with repeats
(each of 200 configurations measured ROWS/200 times), where perfit compresses.

usage: compare.py --perfit PATH [--pagmo PATH] [--rows 1e6] [--seeds 3] [--skip-scipy]
The pagmo contender is build-*/bench/perfit_bench_pagmo (cmake -DPERFIT_BENCH_PAGMO=ON,
Debian libpagmo-dev); without it the pagmo columns read "-".
Also `perfit fit` on 1 rank (defaults), for the strong scaling of time to target.
Last line: speedup_vs_scipy=<x> speedup_vs_pagmo=<y> compressed_speedup_vs_pagmo=<z>
ranks_2_vs_1=<time at 2 ranks / time at 1 rank> (goal <= 0.6)
ranks_2_vs_1_after_launch=<the same, each minus its measured process launch without work>
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import differential_evolution

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # bench/harness.py  # noqa: E402

TRUTH = np.array([30.0, 2e-3, 0.85, 0.05, 0.004, 0.02])
BOUNDS = [(0, 1000), (1e-6, 0.1), (0.5, 1.5), (0, 1), (0, 0.1), (0, 0.1)]
MODEL_YAML = """name: peers6
factors: [p, b, d]
expression: "c0 + c1*(d/p)*b^(a-1) + (d/(p*b))*(c2 + c3*log2(p) + c4*(p-1)/p)"
params: {c0: [0, 1000], c1: [1.0e-6, 0.1], a: [0.5, 1.5], c2: [0, 1], c3: [0, 0.1], c4: [0, 0.1]}
"""


def make_rows(n, grid, rng):
    if grid:
        k = 200
        cp = np.exp(rng.uniform(0, np.log(1024), k))
        cb = np.exp(rng.uniform(np.log(16), np.log(1024), k))
        cd = np.exp(rng.uniform(np.log(1e5), np.log(1e7), k))
        idx = rng.integers(0, k, n)
        p, b, d = cp[idx], cb[idx], cd[idx]
    else:
        p = np.exp(rng.uniform(0, np.log(1024), n))
        b = np.exp(rng.uniform(np.log(16), np.log(1024), n))
        d = np.exp(rng.uniform(np.log(1e5), np.log(1e7), n))
    y = predict(TRUTH, p, b, d) * np.exp(0.01 * rng.standard_normal(n))
    return p, b, d, y


def predict(c, p, b, d):
    return c[0] + c[1] * (d / p) * b ** (c[2] - 1) + (d / (p * b)) * (c[3] + c[4] * np.log2(p) + c[5] * (p - 1) / p)


def scipy_time(rows, target, seed):
    p, b, d, y = rows
    dp, dpb, lb, l2p, pm = d / p, d / (p * b), np.log(b), np.log2(p), (p - 1) / p
    inv = 1.0 / y

    def cost(x):  # vectorised: x is (6, S)
        x = np.atleast_2d(x.T).T if x.ndim == 1 else x
        pred = (x[0][:, None] + x[1][:, None] * dp * np.exp((x[2][:, None] - 1) * lb)
                + dpb * (x[3][:, None] + x[4][:, None] * l2p + x[5][:, None] * pm))
        return np.mean((pred * inv - 1.0) ** 2, axis=1)

    best = [np.inf]
    gens = [0]

    def stop(xk, convergence):
        gens[0] += 1
        best[0] = min(best[0], cost(xk[:, None])[0])
        return best[0] <= target

    t0 = time.perf_counter()
    r = differential_evolution(cost, BOUNDS, strategy="best1bin", seed=seed, vectorized=True,
                               updating="deferred", polish=False, maxiter=5000, callback=stop, tol=0)
    # (vectorised, scipy's nfev counts calls: the evaluations are the population's, 15 x 6)
    return time.perf_counter() - t0, gens[0], 90 * (gens[0] + 1), min(best[0], r.fun)


def pagmo_time(exe, rows_bin, target, seed):
    out = subprocess.run([exe, rows_bin, repr(target), str(seed)], capture_output=True, text=True, check=True)
    s, g, e, c = out.stdout.split()
    return float(s), int(g), int(e), float(c)


def perfit_time(exe, tmp, target, seed, env, ranks=2):
    cmd = [*harness.launch(ranks), exe, "fit", "--data", "s.h5", "--set", "/peers/six",
           "--model", "peers6.yaml", "--target-cost", repr(target), "--seed", str(seed), "--no-polish",
           "--progress-every", "0", "--out", "r.h5", "--force", "--json"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"perfit failed:\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout)
    return wall, j["generations"], j["evaluations"], j["cost"]


def launch_time(exe, env, ranks):
    """Wall time of starting and ending the same processes without work (`perfit --version`):
    what mpiexec adds before the first line of perfit runs (~0.5 s here for 2 ranks)."""
    t0 = time.perf_counter()
    subprocess.run([*harness.launch(ranks), exe, "--version"], env=env, capture_output=True, check=True)
    return time.perf_counter() - t0


def run_set(args, grid, env):
    rng = np.random.default_rng(7)
    n = int(float(args.rows))
    rows = make_rows(n, grid, rng)
    p, b, d, y = rows
    true_cost = float(np.mean((predict(TRUTH, p, b, d) / y - 1.0) ** 2))
    target = 1.5 * true_cost
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "rows.csv"), "w") as f:
            f.write("p,b,d,time_s\n")
            np.savetxt(f, np.column_stack(rows), delimiter=",", fmt="%.17g")
        subprocess.run([args.perfit, "import", "rows.csv", "--out", "s.h5", "--set", "/peers/six",
                        "--target", "time_s"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "peers6.yaml"), "w") as f:
            f.write(MODEL_YAML)
        rows_bin = os.path.join(tmp, "rows.bin")
        np.concatenate([[float(n)], np.column_stack(rows).ravel()]).astype("<f8").tofile(rows_bin)
        res = {"scipy": [], "pagmo": [], "perfit": [], "perfit1": [], "launch2": [], "launch1": []}
        for seed in range(1, args.seeds + 1):  # interleaved: same machine state for each
            if not args.skip_scipy:
                res["scipy"].append(scipy_time(rows, target, seed))
            if args.pagmo:
                res["pagmo"].append(pagmo_time(args.pagmo, rows_bin, target, seed))
            res["perfit"].append(perfit_time(args.perfit, tmp, target, seed, env))
            res["perfit1"].append(perfit_time(args.perfit, tmp, target, seed, env, ranks=1))
            res["launch2"].append(launch_time(args.perfit, env, 2))
            res["launch1"].append(launch_time(args.perfit, env, 1))
    label = "grid with repeats" if grid else "distinct configurations"
    print(f"\n{label}: {n} rows, target {target:.6g} (1.5 x the true constants' {true_cost:.6g})")
    print(f"{'contender':<34} {'gens':>6} {'evals':>8} {'time to target (median)':>24}")
    med = {}
    for name, title in [("scipy", "scipy DE best1bin, vectorised numpy"),
                        ("pagmo", "pagmo2 de best/1/bin, 2 threads"),
                        ("perfit", "mpiexec -n 2 perfit fit (defaults)"),
                        ("perfit1", "perfit fit, 1 rank (defaults)")]:
        if not res[name]:
            print(f"{title:<34} {'-':>6} {'-':>8} {'-':>24}")
            continue
        med[name] = statistics.median(r[0] for r in res[name])
        g = statistics.median(r[1] for r in res[name])
        e = statistics.median(r[2] for r in res[name])
        reached = sum(r[3] <= target * (1 + 1e-12) for r in res[name])
        print(f"{title:<34} {g:>6.0f} {e:>8.0f} {med[name]:>20.2f} s ({reached}/{len(res[name])} reached)")
    med["launch2"] = statistics.median(res["launch2"])
    med["launch1"] = statistics.median(res["launch1"])
    print(f"process launch without work: {med['launch2']:.2f} s (mpiexec -n 2), {med['launch1']:.2f} s (1 rank)")
    return med


def main():
    ap = harness.parser(__doc__.splitlines()[0], expect=False)
    ap.add_argument("--pagmo", default="")
    ap.add_argument("--rows", default="1e6")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--skip-scipy", action="store_true", help="leave scipy out (it takes ~95 s per seed at 1e6 rows)")
    args = ap.parse_args()
    args.perfit = os.path.abspath(args.perfit)
    env = harness.ENV
    distinct = run_set(args, False, env)
    grid = run_set(args, True, env)

    def ratio(a, b):
        return f"{a[b] / a['perfit']:.2f}" if b in a and "perfit" in a else "-"

    two_vs_one = f"{distinct['perfit'] / distinct['perfit1']:.2f}" if "perfit1" in distinct else "-"
    # The same ratio without what starting the processes costs (measured, not assumed).
    work2 = distinct["perfit"] - distinct["launch2"]
    work1 = distinct["perfit1"] - distinct["launch1"]
    after_launch = f"{work2 / work1:.2f}" if work1 > 0 else "-"
    print(f"speedup_vs_scipy={ratio(distinct, 'scipy')} speedup_vs_pagmo={ratio(distinct, 'pagmo')} "
          f"compressed_speedup_vs_pagmo={ratio(grid, 'pagmo')} ranks_2_vs_1={two_vs_one} "
          f"ranks_2_vs_1_after_launch={after_launch}")


if __name__ == "__main__":
    main()
