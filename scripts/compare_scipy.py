#!/usr/bin/env python3
"""perfit fit vs scipy.optimize.differential_evolution on the same set, model, bounds and cost.

Both search the same unit cube (log-scaled params in log space) and minimise the same cost
(mean relative squared error, perfit's default). scipy gets a vectorised numpy objective
(its fastest setup: vectorized=True, updating='deferred'). Prints both final costs, wall times
and their ratio in one run.

usage: compare_scipy.py [--perfit build/perfit] [--data demo.h5] [--set /pytorch/resnet50]
                        [--model generic] [--seed 1] [--maxiter 1000] [--threads 1]
Uses only Debian packages: python3-numpy, python3-scipy, python3-h5py.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
from scipy.optimize import differential_evolution

FUNCS = {"log": np.log, "log2": np.log2, "exp": np.exp, "sqrt": np.sqrt, "abs": np.abs,
         "min": np.minimum, "max": np.maximum, "ceil": np.ceil, "floor": np.floor}


def compile_model(spec, columns):
    """numpy evaluator of a perfit model: params (D x P) -> predictions (rows x P)."""
    def py(expr):
        return compile(re.sub(r"\^", "**", expr), "<model>", "eval")
    terms = {name: py(e) for name, e in spec["terms"].items()}
    root = py(spec["expression"])
    names = [p["name"] for p in spec["params"]]

    def predict(params):
        ns = dict(FUNCS)
        ns.update({k: v[:, None] for k, v in columns.items()})
        ns.update(spec["constants"])
        ns.update({n: params[i][None, :] for i, n in enumerate(names)})
        pending = dict(terms)
        while pending:  # terms may use each other: evaluate in dependency order
            progress = False
            for name, code in list(pending.items()):
                try:
                    ns[name] = eval(code, {"__builtins__": {}}, ns)
                    del pending[name]
                    progress = True
                except NameError:
                    pass
            if not progress:
                raise SystemExit(f"cannot order terms {list(pending)}")
        return eval(root, {"__builtins__": {}}, ns)
    return predict, names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfit", default="build/perfit")
    ap.add_argument("--data", default="demo.h5")
    ap.add_argument("--set", default="/pytorch/resnet50")
    ap.add_argument("--model", default="generic")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--maxiter", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    if not os.path.exists(a.data):
        subprocess.run([a.perfit, "synth", "--out", a.data], check=True, stdout=subprocess.DEVNULL)

    spec = json.loads(subprocess.run([a.perfit, "models", a.model, "--json"], check=True,
                                     capture_output=True, text=True).stdout)[0]
    with h5py.File(a.data, "r") as f:
        g = f[a.set]
        target = g.attrs["target"]
        columns = {k: v[:].astype(float) for k, v in g.items() if v.dtype.kind in "fiu"}
    y = columns[target]
    predict, names = compile_model(spec, columns)
    lo = np.array([p["lo"] for p in spec["params"]], float)
    hi = np.array([p["hi"] for p in spec["params"]], float)
    logp = np.array([p["scale"] == "log" for p in spec["params"]])

    def to_params(u):  # unit cube -> params, as perfit's Model::from_unit
        lin = lo[:, None] + u * (hi - lo)[:, None]
        lg = np.exp(np.log(np.where(logp, lo, 1))[:, None]
                    + u * (np.log(np.where(logp, hi, 2)) - np.log(np.where(logp, lo, 1)))[:, None])
        return np.where(logp[:, None], lg, lin)

    def cost(u):  # u: D x P (vectorized=True)
        u = u.reshape(len(names), -1)
        with np.errstate(all="ignore"):
            pred = predict(to_params(u))
            c = np.mean((pred / y[:, None] - 1.0) ** 2, axis=0)
        bad = ~np.isfinite(c) | np.any(pred < 0, axis=0)
        c[bad] = np.inf
        return c

    t0 = time.perf_counter()
    res = differential_evolution(cost, [(0, 1)] * len(names), seed=a.seed, maxiter=a.maxiter,
                                 tol=1e-8, vectorized=True, updating="deferred", polish=False)
    t_scipy = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = subprocess.run([a.perfit, "fit", "--data", a.data, "--set", a.set, "--model", a.model,
                              "--seed", str(a.seed), "--threads", str(a.threads), "--progress-every", "0",
                              "--out", os.path.join(tmp, "r.h5"), "--json"],
                             check=True, capture_output=True, text=True).stdout
        t_perfit = time.perf_counter() - t0
    pf = json.loads(out)

    print(f"set {a.set} ({len(y)} rows), model {a.model} ({len(names)} params), seed {a.seed}")
    print(f"{'':8s} {'final cost':>14s} {'wall s':>9s} {'generations':>12s}")
    print(f"{'scipy':8s} {res.fun:14.6e} {t_scipy:9.2f} {res.nit:12d}")
    print(f"{'perfit':8s} {pf['cost']:14.6e} {t_perfit:9.2f} {pf['generations']:12d}")
    print(f"speedup_vs_scipy={t_scipy / t_perfit:.1f} cost_ratio={pf['cost'] / res.fun:.4f}")
    for i, n in enumerate(names):
        print(f"  {n:6s} scipy {to_params(res.x[:, None])[i, 0]:.6g}  perfit {pf['params'][n]:.6g}")


if __name__ == "__main__":
    sys.exit(main())
