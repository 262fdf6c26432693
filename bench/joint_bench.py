#!/usr/bin/env python3
"""Joint fits of groups (docs/joint.md) against separate fits, side by side in one run.

A synthetic multi-framework study: G groups (frameworks x networks) on one machine that share
its start-up (c0 = 15 s) and communication (c3 = 0.003, c4 = 0.03) constants and each have
their own per-sample compute c1 and batch exponent g; p in 1..64, batch 32/64/128, 3 runs, 3%
noise (generic's form). A quarter of the groups are measured only at p <= 4 (few-shot).
Every full group's largest scale (p = 64) is held out; the few-shot groups are predicted at
p = 64. Fitted with perfit.fit(df, by="group") (the default: every constant pooled) and with one
perfit.fit per group (separate).

Also, side by side in the same run: nominal 90% prediction intervals against every held-out
run; a variant where the "shared" constants differ by up to 15% between groups, fitted by the
default (pooled), with c0, c2, c3, c4 shared (c1, g per group) and with everything per group;
the same pooled objective (strength given) solved by scipy's least_squares from the separate
fits; and, with --perfit, `perfit fit --by group` on 1 and 2 ranks.

usage: PYTHONPATH=build/python joint_bench.py [--groups 12] [--seed 1] [--perfit build/perfit]
       [--work DIR] [--no-scipy] [--pairs 3] [--expect NAME<=X ...]
Last line: joint_vs_separate=<median held-out error, joint / separate, full groups>
fewshot_vs_full=<few-shot groups' median error / full groups', joint> shared_rel_err=<median
|pooled mean / truth - 1| of c0, c3, c4> coverage90=<share of held-out runs inside the 90%
interval> pooled_vs_best_kind=<variant: the default's median error / the better of shared and
per group> mlperf_joint_vs_separate, mlperf_joint_vs_naive=<MLPerf v0.7 (data/mlperf): median
error at each benchmark's largest scale, pooled over a system's benchmarks / alone / naive ideal
scaling> speed_vs_scipy=<scipy least_squares s / perfit s, same objective; cost_vs_scipy:
perfit's cost / scipy's> ranks_2_vs_1=<wall on 2 ranks / 1, median of --pairs> joint_s=<s> separate_s=<s> groups=<G>
"""
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims  # noqa: E402
import harness  # noqa: E402
import perfit  # noqa: E402

FACTORS = {"p": "gpus", "b": "batch", "d": 1.28e5, "epochs": 1}
C0, C3, C4 = 15.0, 0.003, 0.03


def study(groups, seed, differ=0.0):
    """differ > 0: each group's start-up and communication constants are the machine's times
    a factor drawn uniformly in [1 - differ, 1 + differ]."""
    rng = np.random.default_rng(seed)
    truth = {f"g{k:03d}": (0.004 * np.exp(rng.normal(0, 0.25)), float(np.clip(rng.normal(0.95, 0.04), 0.8, 1.1)))
             for k in range(groups)}
    # Drawn apart, so that differ=0 leaves the noise of the rows as it was.
    machine = {name: np.random.default_rng([seed, k]).uniform(1 - differ, 1 + differ, 3)
               for k, name in enumerate(truth)}
    few = set(list(truth)[::4])
    rows = []
    for name, (c1, g) in truth.items():
        c0, c3, c4 = np.array([C0, C3, C4]) * machine[name]
        for p in (1, 2, 4, 8, 16, 32, 64):
            if name in few and p > 4 and p != 64:
                continue
            for b in (32, 64, 128):
                for r in range(3):
                    t = c0 + 1.28e5 / (b * p) * (c1 * b ** g + c3 * np.log2(p) + c4 * (p - 1) / p)
                    rows.append((name, p, b, r, t, t * np.exp(rng.normal(0, 0.03))))
    df = pd.DataFrame(rows, columns=["group", "gpus", "batch", "rep", "truth", "time"])
    return df, few


def split(df):
    return df[df.gpus < 64], df[df.gpus == 64]


def held_out_error(fit, test):
    pred = fit.predict(test[["group", "gpus", "batch"]])["predicted_time"].to_numpy()
    return np.abs(pred / test.truth.to_numpy() - 1)


def pooled_objective(train, alone, strength):
    """perfit's cost of a pooled fit of `generic` (docs/joint.md), in numpy: the mean squared
    relative residual over every row plus, per constant, strength * sum_g ((x_g - mean) /
    scale)^2, scale = |median of the groups' separate values|. x: G x 6 (c0, c1, g, c2, c3, c4)."""
    names = sorted(set(train.group))
    idx = train.group.map({n: k for k, n in enumerate(names)}).to_numpy()
    p, b, y = train.gpus.to_numpy(float), train.batch.to_numpy(float), train.time.to_numpy()
    scale = np.abs(np.median(alone, axis=0))
    w = np.sqrt(strength) / scale
    n = len(y)

    def residuals(flat):
        x = flat.reshape(len(names), 6)[idx]
        c0, c1, g, c2, c3, c4 = x.T
        t = c0 + 1.28e5 / (b * p) * (c1 * b ** g + c2 + c3 * np.log2(p) + c4 * (p - 1) / p)
        x = flat.reshape(len(names), 6)
        return np.concatenate([(t / y - 1) / np.sqrt(n), ((x - x.mean(axis=0)) * w).ravel()])

    return names, residuals


def against_scipy(train, separate, strength, seed):
    """The pooled fit at a given strength by perfit and by scipy's least_squares started from
    the separate fits (its bounds: the model's). Returns (perfit s, scipy s, perfit's cost /
    scipy's, both judged by the numpy objective)."""
    from scipy.optimize import least_squares
    names, residuals = pooled_objective(train, np.array([separate[n] for n in sorted(separate)]), strength)
    t = time.perf_counter()
    fit = perfit.fit(train, model="generic", target="time", factors=FACTORS, by="group", seed=seed,
                     pool_strength=strength)
    perfit_s = time.perf_counter() - t
    params = fit.params.set_index(["group", "constant"])["value"]
    ours = np.array([[params[(n, c)] for c in ("c0", "c1", "g", "c2", "c3", "c4")] for n in names]).ravel()
    lo = np.tile([0, 1e-6, 0.5, 1e-6, 1e-7, 1e-6], len(names))
    hi = np.tile([1000, 1, 1.2, 1, 1, 10], len(names))
    start = np.clip(np.array([separate[n] for n in names]).ravel(), lo, hi)
    t = time.perf_counter()
    got = least_squares(residuals, start, bounds=(lo, hi), x_scale="jac", method="trf")
    scipy_s = time.perf_counter() - t
    cost = lambda x: float(np.sum(residuals(x) ** 2))  # noqa: E731
    print(f"pooled at strength {strength:g}: perfit {perfit_s:.2f} s cost {cost(ours):.6g}; scipy least_squares "
          f"{scipy_s:.2f} s cost {cost(got.x):.6g} ({got.nfev} evaluations)")
    return perfit_s, scipy_s, cost(ours) / cost(got.x)


MLPERF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "mlperf",
                      "mlperf_training_v0.7_scores.csv")


def mlperf(min_scales=3):
    """Real data we did not make: MLPerf Training v0.7, closed division. Per system (submitter,
    accelerator), every benchmark measured at >= min_scales accelerator counts, the largest
    held out; `amdahl` fitted jointly by benchmark (the default, pooled), alone per benchmark,
    and naive ideal scaling from the largest training scale. Returns median held-out errors."""
    df = pd.read_csv(MLPERF)
    df = df[df.division == "closed"].rename(columns={"time_to_train_s_median": "time", "n_accelerators": "gpus"})
    df = df.dropna(subset=["time"]).groupby(["submitter", "accelerator", "benchmark", "gpus"], as_index=False).time.median()
    errors = {"joint": [], "separate": [], "naive": []}
    for _, system in df.groupby(["submitter", "accelerator"]):
        keep = [b for b, g in system.groupby("benchmark") if g.gpus.nunique() >= min_scales]
        if len(keep) < 2:
            continue
        d = system[system.benchmark.isin(keep)]
        test = d.loc[d.groupby("benchmark").gpus.idxmax()]
        train = d.drop(test.index)
        joint = perfit.fit(train, model="amdahl", target="time", factors={"p": "gpus"}, by="benchmark", seed=1)
        pred = joint.predict(test[["benchmark", "gpus"]])["predicted_time"].to_numpy()
        errors["joint"] += list(np.abs(pred / test.time.to_numpy() - 1))
        for b, row in test.groupby("benchmark", sort=False):
            mine = train[train.benchmark == b]
            alone = perfit.fit(mine, model="amdahl", target="time", factors={"p": "gpus"}, seed=1)
            errors["separate"].append(abs(alone.predict(row[["gpus"]])["predicted_time"].iloc[0] / row.time.iloc[0] - 1))
            last = mine.loc[mine.gpus.idxmax()]
            errors["naive"].append(abs(last.time * last.gpus / row.gpus.iloc[0] / row.time.iloc[0] - 1))
    medians = {k: float(np.median(v)) for k, v in errors.items()}
    print(f"MLPerf v0.7, {len(errors['joint'])} series of systems with several benchmarks, largest scale held out: "
          "median error " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in medians.items()))
    return medians


def on_ranks(exe, work, train, groups, pairs):
    """Median over `pairs` side-by-side pairs of wall seconds of `perfit fit --by group` of the
    training rows on 2 ranks / 1 rank (the order alternating within pairs, so that a machine
    that slows down or speeds up during the run favours neither)."""
    env = harness.ENV
    os.makedirs(work, exist_ok=True)
    csv, store = os.path.join(work, "joint.csv"), os.path.join(work, "joint.h5")
    train[["group", "gpus", "batch", "time"]].to_csv(csv, index=False)
    subprocess.run([exe, "import", csv, "--out", store, "--set", f"/bench/g{groups}", "--target", "time", "--force"],
                   check=True, capture_output=True, env=env)
    ratios = []
    for k in range(pairs):
        walls = {}
        for n in ((1, 2) if k % 2 == 0 else (2, 1)):
            cmd = [*harness.mpiexec(n), exe, "fit", "--data", store, "--set", f"/bench/g{groups}",
                   "--model", "generic", "--factors", "p=gpus,b=batch,d=1.28e5,epochs=1", "--by", "group",
                   "--out", os.path.join(work, f"joint{n}.h5"), "--force"]
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            walls[n] = time.perf_counter() - t
        ratios.append(walls[2] / walls[1])
        print(f"perfit fit --by group, pair {k + 1}: {walls[1]:.2f} s on 1 rank, {walls[2]:.2f} s on 2 "
              f"(mpiexec included): {ratios[-1]:.3f}")
    return float(np.median(ratios))


def main():
    ap = harness.parser(__doc__.split("\n\n")[0], perfit_required=False)
    ap.add_argument("--groups", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default="joint_bench_work")
    ap.add_argument("--no-scipy", action="store_true", help="skip the comparison with scipy's least_squares")
    ap.add_argument("--pairs", type=int, default=3, help="side-by-side pairs of 1 and 2 ranks (ranks_2_vs_1: their median)")
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # predictions at p = 64 extrapolate, by design
    df, few = study(a.groups, a.seed)
    train, held = split(df)
    test = held.drop_duplicates(["group", "batch"])
    t = time.perf_counter()
    joint = perfit.fit(train, model="generic", target="time", factors=FACTORS, by="group", seed=1)
    joint_s = time.perf_counter() - t
    err_joint = held_out_error(joint, test)
    t = time.perf_counter()
    err_sep = np.zeros(len(test))
    separate = {}
    for name in sorted(set(df.group)):
        mine = (test.group == name).to_numpy()
        alone = perfit.fit(train[train.group == name], model="generic", target="time", factors=FACTORS, seed=1)
        separate[name] = alone.params.loc[["c0", "c1", "g", "c2", "c3", "c4"], "value"].to_numpy()
        err_sep[mine] = np.abs(alone.predict(test[mine][["gpus", "batch"]])["predicted_time"].to_numpy()
                               / test.truth[mine] - 1)
    separate_s = time.perf_counter() - t
    full = ~test.group.isin(few).to_numpy()
    params = joint.params
    rel = [abs(params[params.constant == c].value.mean() / v - 1) for c, v in (("c0", C0), ("c3", C3), ("c4", C4))]
    for name, e in (("joint", err_joint), ("separate", err_sep)):
        print(f"{name}: median held-out error full groups {100 * np.median(e[full]):.2f}%, "
              f"few-shot groups {100 * np.median(e[~full]):.2f}%")
    # Every held-out run (all repetitions) against the 90% prediction interval.
    pred = joint.predict(held[["group", "gpus", "batch"]], interval=0.9)
    inside = (pred["lo_time"].to_numpy() <= held.time.to_numpy()) & (held.time.to_numpy() <= pred["hi_time"].to_numpy())
    print(f"90% intervals: {inside.mean():.3f} of {len(held)} held-out runs inside ({pred.attrs['interval_contains']})")
    # Constants that are not quite shared: pooling against either extreme.
    vdf, _ = study(a.groups, a.seed + 1, differ=0.15)
    vtrain, vheld = split(vdf)
    vtest = vheld.drop_duplicates(["group", "batch"])
    kinds = {"pooled (default)": {}, "c0, c2, c3, c4 shared": {"shared": "c0,c2,c3,c4", "per_group": "c1,g"},
             "all per group": {"per_group": "c0,c1,g,c2,c3,c4"}}
    verr = {k: float(np.median(held_out_error(perfit.fit(vtrain, model="generic", target="time", factors=FACTORS,
                                                          by="group", seed=1, **kw), vtest))) for k, kw in kinds.items()}
    print("constants differing by up to 15%: median held-out error " +
          ", ".join(f"{k} {100 * v:.2f}%" for k, v in verr.items()))
    pairs = {"joint_vs_separate": float(np.median(err_joint[full]) / np.median(err_sep[full])),
             "fewshot_vs_full": float(np.median(err_joint[~full]) / np.median(err_joint[full])),
             "shared_rel_err": float(np.median(rel)), "coverage90": float(inside.mean()),
             "pooled_vs_best_kind": verr["pooled (default)"] / min(v for k, v in verr.items() if k != "pooled (default)")}
    real = mlperf()
    pairs["mlperf_joint_vs_separate"] = real["joint"] / real["separate"]
    pairs["mlperf_joint_vs_naive"] = real["joint"] / real["naive"]
    if not a.no_scipy:
        perfit_s, scipy_s, cost_ratio = against_scipy(train, separate, 1e-3, 1)
        pairs["speed_vs_scipy"] = scipy_s / perfit_s
        pairs["cost_vs_scipy"] = cost_ratio
    if a.perfit:
        pairs["ranks_2_vs_1"] = on_ranks(a.perfit, a.work, train, a.groups, a.pairs)
    pairs.update({"joint_s": joint_s, "separate_s": separate_s, "groups": a.groups})
    claims.last_line(pairs, a.expect)


if __name__ == "__main__":
    main()
