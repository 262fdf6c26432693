#!/usr/bin/env python3
"""Issue #24's benchmark: does perfit's automatic choice predict the next scale at least as
well as naive extrapolation, and do its prediction intervals cover what is then measured?

Series of time vs workers p: synthetic ones of several families (below; 3 to 6 scales, powers
of two from 1 or 2; 1 to 5 repetitions; 1-5% multiplicative log-normal noise) and the MLPerf
Training v0.7 series perfit ships (data/mlperf, >= 4 distinct accelerator counts). Each series
loses its largest scale; from the rest
  - auto: `perfit select` with its defaults (p bound to the scale column) writes its choice,
    `perfit predict --interval 0.9` predicts the held-out scale with a 90% prediction interval;
  - each fixed model and both naive references (ideal scaling from the largest measured point,
    the log-log line through the two largest), by one `perfit select --models ... --holdout 1`
    on the whole series (each candidate's held-out MAPE is exactly that prediction's error).
Error: the absolute percentage error at the held-out scale (mean over its repetitions);
per family the median over its series. Coverage: the share of held-out measurements (each
repetition) inside the 90% interval.

Coverage by distance (intervals follow the distance from the measured range): every series
with 5 or more scales also loses its two largest and the last repetition of every other scale
measured more than once; from the rest `select` chooses again and `predict --interval 0.9`
predicts those repetitions (inside the range), the second largest scale (one step beyond) and
the largest (two steps beyond).

Last line:
  auto_vs_best_naive=<worst family's median(auto) / median(better naive)>
  auto_vs_single_fixed=<median(auto) / median(best single fixed model), pooled>
  coverage90=<pooled> worst_family_coverage90=<the family's coverage farthest from 0.9>
  coverage90_inside=<pooled, held-out repetitions> coverage90_step1= coverage90_step2=<pooled, the
  two largest scales held out>
  plain_fit_coverage90=<pooled: a plain `fit --model amdahl` of every series, its 90% interval at
  the held-out largest scale> plain_fit_coverage90_unchecked=<the same with --no-forward-check>

usage: extrapolation_bench.py --perfit PATH [--series N] [--seed S] [--work DIR] [--jobs J] [--expect NAME<=X ...]
"""
import collections
import concurrent.futures
import csv
import json
import math
import os
import statistics
import subprocess
import tempfile

import numpy as np

import claims  # beside this file: the last line and its --expect checks
import harness
import selection_bench  # beside this file: the MLPerf series it reads

MLPERF_TARGET = selection_bench.TARGET
FIXED = ["amdahl", "usl", "power", "pmnf"]  # the built-ins that read only p
PLAIN = "amdahl"  # one model for every series: a plain fit's forward check where its shape is right and where not
NAIVE = ["naive-ideal", "naive-loglog"]
INTERVAL = ["--interval", "0.9"]
REF_ENV = {k: v for k, v in os.environ.items() if not k.startswith("PERFIT_")}


def family_time(name, p, rng):
    """One draw of a family's constants; returns t(p) for the array p."""
    w = rng.uniform(100.0, 2000.0)
    if name == "ideal":
        return w / p
    if name == "amdahl":
        s = rng.uniform(0.02, 0.2)
        return w * (s + (1 - s) / p)
    if name == "comm_log":
        return w / p + rng.uniform(0.01, 0.05) * w * np.log2(p)
    if name == "comm_ring":
        return w / p + rng.uniform(0.05, 0.3) * w * (p - 1) / p
    if name == "contention":
        return w / p * (1 + rng.uniform(0.01, 0.05) * (p - 1) + rng.uniform(1e-4, 1e-3) * p * (p - 1))
    if name == "saturating":  # the interconnect saturates: a per-step transfer stops shrinking past p_sat
        p_sat = rng.choice([2.0, 4.0, 8.0])
        return w / p + rng.uniform(0.05, 0.2) * w / np.minimum(p, p_sat)
    raise ValueError(name)


FAMILIES = ["ideal", "amdahl", "comm_log", "comm_ring", "contention", "saturating"]


def synthetic_series(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for fam in FAMILIES:
        for i in range(n):
            scales = int(rng.integers(3, 7))
            start = int(rng.choice([1, 2]))
            reps = int(rng.integers(1, 6))
            noise = rng.uniform(0.01, 0.05)
            p = np.array([start * 2 ** k for k in range(scales)], dtype=float)
            t = family_time(fam, p, rng)
            rows = [(pp, tt * math.exp(rng.normal(0.0, noise))) for pp, tt in zip(p, t) for _ in range(reps)]
            out.append({"family": fam, "name": f"{fam}{i}", "column": "p", "target": "time_s",
                        "header": ["p", "time_s"], "rows": [{"p": f"{a:g}", "time_s": f"{b:.9g}"} for a, b in rows]})
    return out


def mlperf_series():
    """The MLPerf series of selection_bench.py (>= 4 distinct accelerator counts), two columns kept."""
    groups, _ = selection_bench.series_rows()
    out = []
    for k, v in groups.items():
        keep = [{"n_accelerators": r["n_accelerators"], MLPERF_TARGET: r[MLPERF_TARGET]} for r in v]
        out.append({"family": "mlperf", "name": "/".join(k), "column": "n_accelerators", "target": MLPERF_TARGET,
                    "header": ["n_accelerators", MLPERF_TARGET], "rows": keep})
    return out


def run(perfit, work, *args, env=None):
    r = subprocess.run([perfit, *args], capture_output=True, text=True, cwd=work, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"perfit {' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return r.stdout


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)


def store_of(perfit, work, tag, s, rows):
    write_csv(os.path.join(work, tag + ".csv"), s["header"], rows)
    if os.path.exists(os.path.join(work, tag + ".h5")):
        os.remove(os.path.join(work, tag + ".h5"))
    run(perfit, work, "import", tag + ".csv", "--out", tag + ".h5", "--set", "/bench/series", "--target", s["target"])
    return [tag + ".h5", "--set", "/bench/series", "--factors", "p=" + s["column"]]


def by_distance(perfit, work, tag, s):
    """Coverage inside the range and one and two steps beyond it: the two largest scales held out,
    and the last repetition of every other scale measured more than once (so that inside the
    range, too, the interval is checked on runs the fit did not see).
    {"inside": [bool per held-out run], "step1": [...], "step2": [...]}, or {} below 5 scales."""
    col, target = s["column"], s["target"]
    scales = sorted({float(r[col]) for r in s["rows"]})
    if len(scales) < 5:
        return {}
    below = [r for r in s["rows"] if float(r[col]) < scales[-2]]
    last = {}  # scale -> index in `below` of its last run, for scales measured more than once
    for k, r in enumerate(below):
        if sum(1 for x in below if x[col] == r[col]) > 1:
            last[r[col]] = k
    inside = [below[k] for k in sorted(last.values())]
    train = [r for k, r in enumerate(below) if k not in set(last.values())]
    data = store_of(perfit, work, tag + "_two", s, train)
    run(perfit, work, "select", "--data", *data, "--out", tag + "_two_auto.h5", "--force", "--json")
    asked = inside + [{col: f"{x:g}"} for x in scales[-2:]]
    write_csv(os.path.join(work, tag + "_grid.csv"), [col], [{col: f"{float(r[col]):g}"} for r in asked])
    run(perfit, work, "predict", "--result", tag + "_two_auto.h5", "--grid", tag + "_grid.csv", "--out",
        tag + "_grid_pred.csv", "--force", *INTERVAL)
    with open(os.path.join(work, tag + "_grid_pred.csv")) as f:
        bounds = [(float(r[f"lo_{target}"]), float(r[f"hi_{target}"])) for r in csv.DictReader(f)]
    out = {"inside": [lo <= float(r[target]) <= hi for r, (lo, hi) in zip(inside, bounds)]}
    for name, scale, (lo, hi) in (("step1", scales[-2], bounds[-2]), ("step2", scales[-1], bounds[-1])):
        out[name] = [lo <= float(r[target]) <= hi for r in s["rows"] if float(r[col]) == scale]
    return out


def plain_fit_coverage(perfit, work, tag, data, col, largest, measured):
    """A plain `fit --model PLAIN` on the training rows, with its forward check and without it,
    predicting the held-out largest scale: {"checked": [bool per run], "unchecked": [...]}."""
    out = {}
    for name, flags in (("checked", []), ("unchecked", ["--no-forward-check"])):
        result = f"{tag}_{PLAIN}_{name}.h5"
        run(perfit, work, "fit", "--data", *data, "--model", PLAIN, "--out", result, "--force", *flags)
        iv = json.loads(run(perfit, work, "predict", "--result", result, "--at", f"{col}={largest:g}", *INTERVAL,
                            "--json")).get("interval") or {}
        lo, hi = iv.get("lo"), iv.get("hi")
        out[name] = [lo <= m <= hi for m in measured] if lo is not None and hi is not None else []
    return out


def one_series(perfit, work, i, s):
    col = s["column"]
    largest = max(float(r[col]) for r in s["rows"])
    train = [r for r in s["rows"] if float(r[col]) < largest]
    test = [r for r in s["rows"] if float(r[col]) == largest]
    measured = [float(r[s["target"]]) for r in test]
    tag = f"s{i}"
    data = store_of(perfit, work, tag + "_train", s, train)
    sel = json.loads(run(perfit, work, "select", "--data", *data, "--out", tag + "_auto.h5", "--force", "--json"))
    pred = json.loads(run(perfit, work, "predict", "--result", tag + "_auto.h5", "--at", f"{col}={largest:g}",
                          *INTERVAL, "--json"))
    value = pred["prediction"]
    iv = pred.get("interval", {})
    lo, hi = iv.get("lo"), iv.get("hi")
    lo, hi = (math.nan, math.nan) if lo is None or hi is None else (lo, hi)
    ape = {"auto": 100 * statistics.mean(abs(value - m) / m for m in measured)}
    full = store_of(perfit, work, tag + "_full", s, s["rows"])
    ranking = json.loads(run(perfit, work, "select", "--data", *full, "--models", ",".join(FIXED + NAIVE),
                             "--holdout", "1", "--json", env=REF_ENV))["ranking"]
    for r in ranking:
        ape[r["source"]] = r["metrics"]["mape"] if not r["failed"] else math.inf
    covered = [lo <= m <= hi for m in measured] if not math.isnan(lo) else []
    return {"family": s["family"], "name": s["name"], "ape": ape, "chosen": sel["best"], "covered": covered,
            "ranking": [{k: r.get(k) for k in ("source", "score", "determined", "why", "failed")} for r in sel["ranking"]],
            "no_interval": math.isnan(lo), "scales": len({r[col] for r in train}), "rows": len(train),
            "log_err": [math.log(value / m) for m in measured], "halfwidth": math.log(hi / value) if not math.isnan(lo) else None,
            "interval_note": pred.get("interval", {}).get("contains", ""),
            "plain": plain_fit_coverage(perfit, work, tag, data, col, largest, measured),
            "distance": by_distance(perfit, work, tag, s)}


def main():
    ap = harness.parser(__doc__.split("\n")[0])
    ap.add_argument("--series", type=int, default=500,
                    help="synthetic series per family (500: ~6 min; medians of 100 scatter by +-0.1 between seeds)")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--work", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    perfit = os.path.abspath(a.perfit)
    work = a.work or tempfile.mkdtemp(prefix="perfit_extrapolation_")
    os.makedirs(work, exist_ok=True)
    series = synthetic_series(a.series, a.seed) + mlperf_series()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda x: one_series(perfit, work, *x), enumerate(series)))
    fams = FAMILIES + ["mlperf"]
    methods = ["auto"] + NAIVE + FIXED
    print(f"{'family':12s} {'series':>6s} " + " ".join(f"{m:>12s}" for m in methods) + f" {'cover90':>8s}  chosen")
    worst_naive, cover = 0.0, {}
    for fam in fams:
        rs = [r for r in results if r["family"] == fam]
        med = {m: statistics.median(r["ape"][m] for r in rs) for m in methods}
        cov = [c for r in rs for c in r["covered"]]
        cover[fam] = sum(cov) / len(cov) if cov else math.nan
        chosen = collections.Counter(r["chosen"] for r in rs).most_common(3)
        print(f"{fam:12s} {len(rs):>6d} " + " ".join(f"{med[m]:>11.2f}%" for m in methods)
              + f" {cover[fam]:>8.2f}  " + ", ".join(f"{k} {v}" for k, v in chosen))
        naive = min(med[m] for m in NAIVE)
        worst_naive = max(worst_naive, med["auto"] / naive if naive > 0 else math.inf)
    pooled = {m: statistics.median(r["ape"][m] for r in results) for m in methods}
    best_fixed = min(FIXED, key=lambda m: pooled[m])
    if os.environ.get("BENCH_DUMP"):
        with open(os.environ["BENCH_DUMP"], "w") as f:
            json.dump(results, f)
    missing = sum(r["no_interval"] for r in results)
    print(f"{missing} of {len(results)} series got no interval (too little data: the interval says so)")
    synth = [c for r in results if r["family"] != "mlperf" for c in r["covered"]]
    coverage = sum(synth) / len(synth)
    worst_cov = max((cover[f] for f in FAMILIES), key=lambda c: abs(c - 0.9))
    print("pooled median APE: " + ", ".join(f"{m} {pooled[m]:.2f}%" for m in methods))
    at = {}
    print(f"coverage by distance, two largest scales held out ({sum(1 for r in results if r['distance'])} series "
          "with 5+ scales):")
    for where in ("inside", "step1", "step2"):
        per = {fam: [c for r in results if r["family"] == fam for c in r["distance"].get(where, [])] for fam in fams}
        synth_at = [c for fam in FAMILIES for c in per[fam]]
        at[where] = sum(synth_at) / len(synth_at) if synth_at else math.nan
        print(f"  {where:7s} pooled {at[where]:.3f}; " + ", ".join(
            f"{fam} {sum(v) / len(v):.2f}" for fam, v in per.items() if v))
    plain = {}
    for name in ("checked", "unchecked"):
        per = {fam: [c for r in results if r["family"] == fam for c in r["plain"][name]] for fam in fams}
        synth_plain = [c for fam in FAMILIES for c in per[fam]]
        plain[name] = sum(synth_plain) / len(synth_plain) if synth_plain else math.nan
        print(f"plain `fit --model {PLAIN}`, {name + (' (--no-forward-check)' if name == 'unchecked' else ''):29s}: "
              f"held-out largest scale covered {plain[name]:.3f} pooled; "
              + ", ".join(f"{fam} {sum(v) / len(v):.2f}" for fam, v in per.items() if v))
    claims.last_line({"auto_vs_best_naive": worst_naive, "auto_vs_single_fixed": pooled["auto"] / pooled[best_fixed],
                      "coverage90": coverage, "worst_family_coverage90": worst_cov, "coverage90_inside": at["inside"],
                      "coverage90_step1": at["step1"], "coverage90_step2": at["step2"],
                      "plain_fit_coverage90": plain["checked"], "plain_fit_coverage90_unchecked": plain["unchecked"]},
                     a.expect)


if __name__ == "__main__":
    main()
