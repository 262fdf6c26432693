#!/usr/bin/env python3
"""scripts/plot_fit.py end to end: a fit of a synthetic set, then the four figures (300-dpi PNG,
SVG, PDF), readable and of the expected size; bad input gives one line and a non-zero exit.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import os
import subprocess
import sys

import matplotlib.image as mpimg

import ranks

perfit, work, _ = ranks.arguments()
src = ranks.SOURCE
script = os.path.join(src, "scripts", "plot_fit.py")
failures = []


def run(*args):
    return subprocess.run([sys.executable, script, *args, "--perfit", perfit], cwd=work,
                          capture_output=True, text=True, timeout=120)


subprocess.run([perfit, "synth", "--out", "s.h5", "--rows", "3000", "--set", "/pytorch/bert"],
               cwd=work, check=True, stdout=subprocess.DEVNULL)
subprocess.run([perfit, "fit", "--data", "s.h5", "--set", "/pytorch/bert", "--out", "r.h5"],
               cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
# ---- the four figures of a fit ----
def test_the_four_figures_of_a_fit():
    r = run("r.h5", "--out", "plots")
    want = ["scaling.png", "measured_vs_predicted.png", "residuals.png", "terms.png"]
    if r.returncode != 0 or [os.path.basename(l) for l in r.stdout.split()] != want:
        failures.append(f"plot_fit.py: exit {r.returncode}, printed {r.stdout!r}\n{r.stderr[-1500:]}")
    for name in want:
        path = os.path.join(work, "plots", name)
        if not os.path.exists(path):
            failures.append(f"{name} not written")
            continue
        with open(path, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                failures.append(f"{name} is not a PNG")
        img = mpimg.imread(path)
        if img.shape[0] < 900 or img.shape[1] < 1200 or img.std() < 0.05:
            failures.append(f"{name}: {img.shape}, std {img.std():.3f}: empty or below 300 dpi")
    r = run("r.h5", "--out", "vector", "--format", "svg,pdf")
    for name in ("scaling.svg", "scaling.pdf", "terms.pdf"):
        path = os.path.join(work, "vector", name)
        with open(path, "rb") as f:
            head = f.read(400)
        if not (b"<svg" in head if name.endswith(".svg") else head.startswith(b"%PDF")):
            failures.append(f"{name}: not an SVG or PDF: {head[:60]!r}")


# ---- --sweep, and bad input ----
def test_sweep_and_bad_input():
    # --sweep picks the stacked factor; a factor the model does not read is refused
    r = run("r.h5", "--out", "plots_b", "--sweep", "b")
    if r.returncode != 0 or not os.path.exists(os.path.join(work, "plots_b", "terms.png")):
        failures.append(f"--sweep b: exit {r.returncode}\n{r.stderr[-1000:]}")
    r = run("r.h5", "--out", "plots_at", "--at", "d=1e6")  # a value not measured, as asked
    if r.returncode != 0 or not os.path.exists(os.path.join(work, "plots_at", "scaling.png")):
        failures.append(f"--at d=1e6: exit {r.returncode}\n{r.stderr[-1000:]}")
    r = run("r.h5", "--out", "plots_atq", "--at", "q=1")
    if r.returncode != 2 or "not a factor held along the curve" not in r.stderr:
        failures.append(f"--at q=1: exit {r.returncode}: {r.stderr!r}")
    r = run("r.h5", "--out", "plots_q", "--sweep", "q")
    if r.returncode != 2 or "--sweep q: not a factor" not in r.stderr:
        failures.append(f"--sweep q: exit {r.returncode}: {r.stderr!r}")
    r = run("s.h5", "--out", "plots_x")
    if r.returncode != 3 or "not a perfit result" not in r.stderr:
        failures.append(f"a store as result: exit {r.returncode}: {r.stderr!r}")
