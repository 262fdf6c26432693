#!/usr/bin/env python3
"""Plots of a perfit fit: measured vs predicted (log-log), relative residuals against each
factor, and the model's terms stacked along one factor (from `perfit explain`).

usage: plot_fit.py RESULT.h5 --out DIR [--data STORE.h5] [--set PATH] [--sweep FACTOR]
                   [--perfit PATH]
--data/--set default to the store and set the fit read (recorded in the result); --sweep
defaults to p (or the first factor that varies), the other factors are held at their median.
Writes DIR/measured_vs_predicted.png, DIR/residuals.png, DIR/terms.png and prints their paths.
Uses Debian's python3-h5py, python3-numpy and python3-matplotlib only; perfit does the
predictions (`perfit predict --grid`, `perfit explain --json`), so the plots show exactly
what perfit computes.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def fail(msg, code=2):
    print(f"plot_fit.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd[:2])} failed (exit {r.returncode}): {r.stderr.strip()[-500:]}", r.returncode)
    return r.stdout


def read_result(path):
    try:
        with h5py.File(path, "r") as h:
            a = h.attrs
            if text(a.get("perfit_result", "")) == "":
                fail(f"'{path}' is not a perfit result file (no perfit_result attribute)")
            info = {k: text(a[k]) for k in ["data_file", "set", "target", "unit", "model_yaml", "model"]}
            info["bound"] = bound_columns(text(a.get("config_yaml", "")))
            return info
    except OSError as e:
        fail(f"cannot read '{path}': {e}", 6)


def bound_columns(config_yaml):
    """{factor: column} from the fit's --factors (saved in config_yaml), e.g. {"p": "gpus"}."""
    m = re.search(r"^factors:[ \t]*(.*)$", config_yaml, re.M)
    out = {}
    for item in (m.group(1).strip().strip("'\"") if m else "").split(","):
        name, _, column = item.partition("=")
        try:
            float(column)
        except ValueError:
            if name and column:
                out[name.strip()] = column.strip()
    return out


def read_rows(store, set_path, factors, target):
    try:
        with h5py.File(store, "r") as h:
            if set_path not in h:
                fail(f"'{store}' has no set '{set_path}' (pass --data/--set)", 3)
            g = h[set_path]
            missing = [c for c in factors + [target] if c not in g]
            if missing:
                fail(f"set '{set_path}' of '{store}' lacks column(s) {', '.join(missing)}", 3)
            return {c: g[c][:].astype(float) for c in factors + [target]}
    except OSError as e:
        fail(f"cannot read '{store}': {e}", 6)


def predict(perfit, result, cols, factors, tmp):
    grid = os.path.join(tmp, "grid.csv")
    with open(grid, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(factors)
        w.writerows(zip(*[[repr(float(v)) for v in cols[c]] for c in factors]))
    out = os.path.join(tmp, "pred.csv")
    run([perfit, "predict", "--result", result, "--grid", grid, "--out", out])
    with open(out) as f:
        rows = list(csv.DictReader(f))
    key = [k for k in rows[0] if k.startswith("predicted_")][0]
    return np.array([float(r[key]) for r in rows])


def plot_measured(meas, pred, info, path):
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.loglog(meas, pred, ".", ms=3, alpha=0.5)
    lo, hi = min(meas.min(), pred.min()), max(meas.max(), pred.max())
    ax.loglog([lo, hi], [lo, hi], "k--", lw=1, label="predicted = measured")
    ax.set_xlabel(f"measured {info['target']} ({info['unit']})")
    ax.set_ylabel(f"predicted ({info['unit']})")
    mape = 100 * np.mean(np.abs(pred / meas - 1))
    ax.set_title(f"{info['model']} on {info['set']}: MAPE {mape:.2f}%")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_residuals(cols, factors, meas, pred, path):
    fig, axes = plt.subplots(1, len(factors), figsize=(4 * len(factors), 3.6), squeeze=False)
    rel = 100 * (pred / meas - 1)
    for ax, f in zip(axes[0], factors):
        x = cols[f]
        ax.plot(x, rel, ".", ms=3, alpha=0.5)
        if np.all(x > 0) and x.max() > 4 * x.min():
            ax.set_xscale("log")
        ax.axhline(0, color="k", lw=1)
        ax.set_xlabel(f)
        ax.set_ylabel("relative error (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_terms(perfit, result, cols, factors, sweep, info, path):
    x = cols[sweep]
    at = ",".join(f"{f}={float(np.median(cols[f])):.17g}" for f in factors if f != sweep)
    cmd = [perfit, "explain", "--result", result, "--sweep", f"{sweep}={x.min():.17g}..{x.max():.17g}", "--json"]
    if at:
        cmd += ["--at", at]
    ex = json.loads(run(cmd))
    xs = [p[sweep] for p in ex["points"]]
    terms = list(ex["points"][0]["share"])
    values = [[p["share"][t] * p["time"] for p in ex["points"]] for t in terms]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    pos = [[max(v, 0.0) for v in row] for row in values]  # a negative term cannot be stacked
    ax.stackplot(xs, pos, labels=terms, alpha=0.85)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(sweep + (f"   ({at})" if at else ""))
    ax.set_ylabel(f"{info['target']} ({info['unit']})")
    ax.set_title(f"terms of {info['model']} along {sweep}")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--out", required=True, help="directory for the PNGs (created)")
    ap.add_argument("--data", help="store with the measured rows (default: the one the fit read)")
    ap.add_argument("--set", help="set path (default: the one the fit read)")
    ap.add_argument("--sweep", help="factor for the stacked terms (default: p, else the first that varies)")
    ap.add_argument("--perfit", default=shutil.which("perfit") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "perfit"))
    a = ap.parse_args()
    if not os.path.exists(a.perfit):
        fail(f"perfit executable '{a.perfit}' not found; pass --perfit PATH")
    info = read_result(a.result)
    store = a.data or info["data_file"]
    set_path = a.set or info["set"]
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path = os.path.join(tmp, "model.yaml")
        with open(yaml_path, "w") as f:
            f.write(info["model_yaml"])
        factors = json.loads(run([a.perfit, "models", yaml_path, "--json"]))[0]["factors"]
        cols = read_rows(store, set_path, factors, info["target"])
        meas = cols[info["target"]]
        pred = predict(a.perfit, a.result, cols, factors, tmp)
        varying = [f for f in factors if np.ptp(cols[f]) > 0]
        # A factor may be named as the fit bound it (--sweep p for the column gpus).
        p = info["bound"].get("p", "p")
        sweep = info["bound"].get(a.sweep, a.sweep) if a.sweep else (
            p if p in varying else (varying[0] if varying else None))
        if a.sweep and sweep not in factors:
            fail(f"--sweep {a.sweep}: not a factor of model '{info['model']}' ({', '.join(factors)})")
        os.makedirs(a.out, exist_ok=True)
        paths = [os.path.join(a.out, n) for n in ["measured_vs_predicted.png", "residuals.png", "terms.png"]]
        plot_measured(meas, pred, info, paths[0])
        plot_residuals(cols, varying or factors, meas, pred, paths[1])
        if sweep is None or np.ptp(cols[sweep]) == 0:
            paths.pop()
            print("plot_fit.py: no factor varies in the set: no terms plot", file=sys.stderr)
        else:
            plot_terms(a.perfit, a.result, cols, factors, sweep, info, paths[2])
    for p in paths:
        print(p)


if __name__ == "__main__":
    main()
