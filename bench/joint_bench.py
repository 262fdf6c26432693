#!/usr/bin/env python3
"""Joint fits of groups (docs/joint.md) against separate fits, side by side in one run.

A synthetic multi-framework study: G groups (frameworks x networks) on one machine that share
its start-up (c0 = 15 s) and communication (c3 = 0.003, c4 = 0.03) constants and each have
their own per-sample compute c1 and batch exponent g; p in 1..64, batch 32/64/128, 3 runs, 3%
noise (generic's form). A quarter of the groups are measured only at p <= 4 (few-shot).
Every full group's largest scale (p = 64) is held out; the few-shot groups are predicted at
p = 64. Fitted with perfit.fit(df, by="group") (the default: every constant pooled) and with one
perfit.fit per group (separate).

usage: PYTHONPATH=build/python joint_bench.py [--groups 12] [--seed 1] [--expect NAME<=X ...]
Last line: joint_vs_separate=<median held-out error, joint / separate, full groups>
fewshot_vs_full=<few-shot groups' median error / full groups', joint> shared_rel_err=<median
|pooled mean / truth - 1| of c0, c3, c4> joint_s=<s> separate_s=<s> groups=<G>
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claims  # noqa: E402
import perfit  # noqa: E402

FACTORS = {"p": "gpus", "b": "batch", "d": 1.28e5, "epochs": 1}
C0, C3, C4 = 15.0, 0.003, 0.03


def study(groups, seed):
    rng = np.random.default_rng(seed)
    truth = {f"g{k:03d}": (0.004 * np.exp(rng.normal(0, 0.25)), float(np.clip(rng.normal(0.95, 0.04), 0.8, 1.1)))
             for k in range(groups)}
    few = set(list(truth)[::4])
    rows = []
    for name, (c1, g) in truth.items():
        for p in (1, 2, 4, 8, 16, 32, 64):
            if name in few and p > 4 and p != 64:
                continue
            for b in (32, 64, 128):
                for r in range(3):
                    t = C0 + 1.28e5 / (b * p) * (c1 * b ** g + C3 * np.log2(p) + C4 * (p - 1) / p)
                    rows.append((name, p, b, r, t, t * np.exp(rng.normal(0, 0.03))))
    df = pd.DataFrame(rows, columns=["group", "gpus", "batch", "rep", "truth", "time"])
    return df, few


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expect", action="append", default=[])
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # predictions at p = 64 extrapolate, by design
    df, few = study(a.groups, a.seed)
    train, test = df[df.gpus < 64], df[df.gpus == 64].drop_duplicates(["group", "batch"])
    t = time.perf_counter()
    joint = perfit.fit(train, model="generic", target="time", factors=FACTORS, by="group", seed=1)
    joint_s = time.perf_counter() - t
    err_joint = np.abs(joint.predict(test[["group", "gpus", "batch"]])["predicted_time"].to_numpy() / test.truth - 1)
    t = time.perf_counter()
    err_sep = np.zeros(len(test))
    for name in sorted(set(df.group)):
        mine = (test.group == name).to_numpy()
        alone = perfit.fit(train[train.group == name], model="generic", target="time", factors=FACTORS, seed=1)
        err_sep[mine] = np.abs(alone.predict(test[mine][["gpus", "batch"]])["predicted_time"].to_numpy()
                               / test.truth[mine] - 1)
    separate_s = time.perf_counter() - t
    full = ~test.group.isin(few).to_numpy()
    params = joint.params
    rel = [abs(params[params.constant == c].value.mean() / v - 1) for c, v in (("c0", C0), ("c3", C3), ("c4", C4))]
    for name, e in (("joint", err_joint), ("separate", err_sep)):
        print(f"{name}: median held-out error full groups {100 * np.median(e[full]):.2f}%, "
              f"few-shot groups {100 * np.median(e[~full]):.2f}%")
    claims.last_line({"joint_vs_separate": float(np.median(err_joint[full]) / np.median(err_sep[full])),
                      "fewshot_vs_full": float(np.median(err_joint[~full]) / np.median(err_joint[full])),
                      "shared_rel_err": float(np.median(rel)), "joint_s": joint_s, "separate_s": separate_s,
                      "groups": a.groups}, a.expect)


if __name__ == "__main__":
    main()
