#!/usr/bin/env python3
"""A default `perfit fit` as users run it (to convergence, no target cost) on many distinct rows,
against the same fit with the search on every row (`--search-rows 0`, what the default did
before issue 24), side by side in one run; and `--bootstrap B` on 2 ranks.

Data and model: bench/peers/compare.py's (6 constants, 5 of them linear: variable projection
leaves a 1-D search; every row a distinct configuration, so nothing compresses). By default a
set of more than 2 x 65,536 rows is searched on every k-th row and the Newton polish converges
on all rows: the answer must be the same optimum (cost within 1e-9 relative, checked: the
benchmark fails otherwise).

usage: fit_speed_bench.py --perfit PATH [--rows 1e6] [--seeds 3] [--bootstrap 100] [--work DIR]
Last line: default_fit_s=<median wall, 1 rank> all_rows_search_fit_s=<median wall>
speedup=<ratio> cost_rel_diff=<largest |cost / all-rows cost - 1|>
bootstrap_ranks2_s=<wall of mpiexec -n 2 perfit fit --bootstrap B>
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import harness  # beside this file  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
from compare import MODEL_YAML, make_rows  # noqa: E402  (the same data and model as compare.py)


def fit(args, work, seed, extra, ranks=1, out="r.h5"):
    cmd = [*harness.launch(ranks), args.perfit, "fit", "--data", "s.h5", "--set", "/peers/six", "--model", "peers6.yaml",
           "--seed", str(seed), "--progress-every", "0", "--out", out, "--force", "--json", *extra]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=work, env=harness.ENV, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"perfit fit {' '.join(extra)} failed:\n{r.stderr[-2000:]}")
    return wall, json.loads(r.stdout)


def main():
    ap = harness.parser(__doc__, expect=False)
    ap.add_argument("--rows", default="1e6")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--bootstrap", type=int, default=100)
    ap.add_argument("--work", help="working directory (default: a temporary one)")
    args = ap.parse_args()
    args.perfit = os.path.abspath(args.perfit)
    work = args.work or tempfile.mkdtemp(prefix="fit_speed_")
    os.makedirs(work, exist_ok=True)
    n = int(float(args.rows))
    p, b, d, y = make_rows(n, False, np.random.default_rng(7))
    with open(os.path.join(work, "rows.csv"), "w") as f:
        f.write("p,b,d,time_s\n")
        np.savetxt(f, np.column_stack([p, b, d, y]), delimiter=",", fmt="%.17g")
    if os.path.exists(os.path.join(work, "s.h5")):
        os.remove(os.path.join(work, "s.h5"))  # a store of an earlier run of this benchmark
    subprocess.run([args.perfit, "import", "rows.csv", "--out", "s.h5", "--set", "/peers/six", "--target", "time_s"],
                   cwd=work, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "peers6.yaml"), "w") as f:
        f.write(MODEL_YAML)

    walls = {"default": [], "all_rows": []}
    worst = 0.0
    print(f"{n} distinct rows, model peers6 (1 searched constant, 5 solved), 1 rank, to convergence")
    print(f"{'seed':>4} {'contender':<28} {'wall s':>8} {'DE s':>7} {'evals':>6} {'cost':>24}")
    for seed in range(1, args.seeds + 1):  # interleaved: the same machine state for both
        runs = {}
        for name, extra in [("default", []), ("all_rows", ["--search-rows", "0"])]:
            wall, j = fit(args, work, seed, extra)
            walls[name].append(wall)
            runs[name] = j
            print(f"{seed:>4} {name:<28} {wall:>8.3f} {j['de_seconds']:>7.3f} {j['evaluations']:>6} {j['cost']:>24.17g}")
        worst = max(worst, abs(runs["default"]["cost"] / runs["all_rows"]["cost"] - 1.0))
    boot_wall, bj = fit(args, work, 1, ["--bootstrap", str(args.bootstrap)], ranks=2, out="rb.h5")
    print(f"mpiexec -n 2 perfit fit --bootstrap {args.bootstrap}: {boot_wall:.2f} s "
          f"({bj.get('bootstrap_resampled')} resampling)")
    med = {k: statistics.median(v) for k, v in walls.items()}
    if worst > 1e-9:
        print(f"FAIL: the default fit's cost differs from the all-rows search's by {worst:.3g} (relative)")
    print(f"default_fit_s={med['default']:.3f} all_rows_search_fit_s={med['all_rows']:.3f} "
          f"speedup={med['all_rows'] / med['default']:.2f} cost_rel_diff={worst:.3g} "
          f"bootstrap_ranks2_s={boot_wall:.2f}")
    return 1 if worst > 1e-9 else 0


if __name__ == "__main__":
    sys.exit(main())
