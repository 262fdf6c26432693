#!/usr/bin/env python3
"""Model every call path, side by side in one run: Extra-P 4.2.5 (../shared/peers/extrap-4.2.5,
its command line) and `perfit import` + `perfit batch` of a manifest whose one entry is
`select: {models: [pmnf-search]}` over every call path, on the same Extra-P text file.

Call paths: one parameter p at 2, 4, 8, 16, 32, five repetitions each, the time
c0 + c1 * p^(a/b) * log2(p)^j with (a/b, j) drawn from Extra-P's default building blocks
(a/b in 1/2 .. 3, j in 0..2, not both 0), c0 in [1, 10], c1 such that the term is 10-90% of the
time at p = 32, times log-normal noise (2% by default).

Measured: wall time end to end (perfit on 1 rank with its default threads and with one thread, and
on 2 ranks: import + batch select + the selection store of every
winner + summary, the best of --repeat runs since a run of 1-2 s is exposed to the machine's
slow spells far more than Extra-P's minute; Extra-P: its whole run, once), the
share of call paths where both choose the same hypothesis, and how often each finds the true
one. Without the peer (or --no-extrap) only perfit's side runs.

With --params 2: two parameters p and n on a 5 x 5 grid (p = 2..32, n = 16..256), five
repetitions, c0 + c1*f(p)*g(n) or c0 + c1*f(p) + c2*g(n) with f, g drawn as above; perfit
selects with `pmnf-search:p+n`, Extra-P runs its multi-parameter modeler; "same hypothesis"
is then the same prediction (to 1e-6 relative) at p = 64, n = 512, and the true rate is not
measured (reported as -).

usage: extrap_compare.py --perfit PATH [--paths 10000] [--params 1|2] [--noise 0.02] [--seed 1]
                         [--work DIR] [--peer DIR] [--no-extrap] [--repeat 3]
Last line: speedup_vs_extrap=<Extra-P wall / perfit wall, 1 rank with its default threads (one per
CPU: Extra-P runs on one)> speedup_1_thread=<the same with perfit on 1 rank, --threads 1>
ranks_2_vs_1=<perfit 2 ranks / 1 rank of 1 thread> agree=<same hypothesis share> true_rate_perfit=<share> true_rate_extrap=<share>
coef_agree=<of the paths with the same hypothesis, the share whose c0 and c1 agree to 1e-6>
"""
import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness  # bench/harness.py  # noqa: E402

POINTS = [2, 4, 8, 16, 32]
EXPONENTS = [Fraction(x) for x in ["1/2", "2/3", "3/4", "1", "4/3", "3/2", "5/3", "2", "5/2", "3"]]


def make_paths(n, noise, rng):
    truth, lines = [], ["PARAMETER p", "POINTS " + " ".join(map(str, POINTS))]
    p = np.array(POINTS, dtype=float)
    for k in range(n):
        e = EXPONENTS[rng.integers(len(EXPONENTS))]
        j = int(rng.integers(3))
        term = p ** float(e) * np.log2(p) ** j
        c0 = rng.uniform(1, 10)
        share = rng.uniform(0.1, 0.9)
        c1 = c0 * share / (1 - share) / term[-1]
        truth.append((e, j))
        lines += [f"REGION r{k}", "METRIC time"]
        for t in c0 + c1 * term:
            lines.append("DATA " + " ".join(f"{v:.8g}" for v in t * np.exp(noise * rng.standard_normal(5))))
    return truth, "\n".join(lines) + "\n"


N_POINTS = [16, 32, 64, 128, 256]


def draw_term(rng, x):
    e = EXPONENTS[rng.integers(len(EXPONENTS))]
    j = int(rng.integers(3))
    return x ** float(e) * np.log2(x) ** j


def make_paths_2(n, noise, rng):
    """Two parameters on a full 5 x 5 grid: c0 + c1*f(p)*g(n) or c0 + c1*f(p) + c2*g(n)."""
    grid = [(p, m) for p in POINTS for m in N_POINTS]
    lines = ["PARAMETER p n", "POINTS " + " ".join(f"({p} {m})" for p, m in grid)]
    p = np.array([g[0] for g in grid], dtype=float)
    m = np.array([g[1] for g in grid], dtype=float)
    for k in range(n):
        f, g = draw_term(rng, p), draw_term(rng, m)
        c0 = rng.uniform(1, 10)
        t = c0 + (c0 * f * g / (f * g).max() if rng.integers(2) else c0 * (0.5 * f / f.max() + 0.5 * g / g.max()))
        lines += [f"REGION r{k}", "METRIC time"]
        for v in t:
            lines.append("DATA " + " ".join(f"{x:.8g}" for x in v * np.exp(noise * rng.standard_normal(5))))
    return None, "\n".join(lines) + "\n"


def perfit_value(row, p, n):
    """The row's hypothesis with its constants, at (p, n)."""
    h = row["hypothesis"].replace("^", "**").replace("log2(", "math.log2(")
    env = {"math": math, "p": p, "n": n}
    env.update({k: float(v) for k, v in row.items() if re.fullmatch(r"c\d+", k or "") and v})
    return eval(h, env)


def extrap_value(s, p, n):
    return eval(s.replace("log2(", "math.log2("), {"math": math, "p": p, "n": n})


def perfit_shape(h):
    """'c0 + c1*p^(3/2)*log2(p)^2' -> (3/2, 2); 'c0' -> (0, 0)."""
    m = re.search(r"p\^\(([^)]*)\)", h)
    lg = re.search(r"log2\(p\)(?:\^(\d+))?", h)
    return Fraction(m.group(1)) if m else Fraction(0), (int(lg.group(1) or 1) if lg else 0)


def extrap_shape(s):
    """'a+b*p**(3/2)*log2(p)**(2)' -> (3/2, 2)."""
    m = re.search(r"p\*\*\(([^)]*)\)", s)
    lg = re.search(r"log2\(p\)\*\*\(([^)]*)\)", s)
    return Fraction(m.group(1)) if m else Fraction(0), (int(Fraction(lg.group(1))) if lg else 0)


def extrap_coefficients(s):
    """'3.1+0.02*p**(3/2)' -> (3.1, 0.02); a constant 'c' -> (c, 0)."""
    num = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    m = re.match(rf"\s*({num})\s*(?:\+\s*\(?\s*({num})\s*\)?\s*\*)?", s)
    if not m:
        return None
    return float(m.group(1)), float(m.group(2)) if m.group(2) else 0.0


def run_perfit(args, work, ranks, threads=0):
    """One import + batch; threads: per rank (0: perfit's default, one per CPU the rank may use)."""
    env, launch = harness.ENV, harness.launch(ranks)
    store, out = os.path.join(work, f"x{ranks}.h5"), os.path.join(work, f"sel{ranks}")
    if os.path.exists(store):
        os.remove(store)
    shutil.rmtree(out, ignore_errors=True)
    manifest = os.path.join(work, f"select{ranks}.yaml")
    with open(manifest, "w") as f:
        search = "pmnf-search" if args.params == 1 else "pmnf-search:p+n"
        f.write(f"data: x{ranks}.h5\nfits:\n  - sets: ['/x/*/time']\n    select: {{models: [{search}]}}\n")
    t0 = time.perf_counter()
    subprocess.run([args.perfit, "import", "paths.txt", "--format", "extrap", "--out", store, "--set", "/x"],
                   cwd=work, check=True, stdout=subprocess.DEVNULL)
    r = subprocess.run([*launch, args.perfit, "batch", "--manifest", manifest, "--out", out,
                        "--threads", str(threads)],
                       cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"perfit batch failed:\n{r.stderr[-2000:]}")
    with open(os.path.join(out, "selection.csv")) as f:
        rows = {row["set"].split("/")[2]: row for row in csv.DictReader(f)}
    if args.params == 2:  # the prediction beyond the grid stands for the hypothesis and its constants
        return wall, {k: perfit_value(v, 64, 512) for k, v in rows.items() if v["status"] == "ok"}, {}
    coef = {k: (float(v["c0"]), float(v.get("c1") or 0.0)) for k, v in rows.items() if v["status"] == "ok"}
    return wall, {k: perfit_shape(v["hypothesis"]) for k, v in rows.items() if v["status"] == "ok"}, coef


def run_extrap(peer, work, params=1):
    env = dict(os.environ, PYTHONPATH=f"{peer}:{peer}/stubs")
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/python3", "-m", "extrap", "--text", "paths.txt", "--disable-progress",
                        "--print", "{callpath};{metric};{model:python}"], cwd=work, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"Extra-P failed:\n{r.stderr[-2000:]}")
    shapes, coef = {}, {}
    for line in r.stdout.splitlines():
        parts = line.split(";")
        if len(parts) == 3:
            if params == 2:
                shapes[parts[0]] = extrap_value(parts[2], 64, 512)
                continue
            shapes[parts[0]] = extrap_shape(parts[2])
            coef[parts[0]] = extrap_coefficients(parts[2])
    return wall, shapes, coef


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = harness.parser(__doc__, expect=False)
    ap.add_argument("--paths", type=int, default=10000)
    ap.add_argument("--params", type=int, choices=[1, 2], default=1)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work")
    ap.add_argument("--peer", default=os.path.normpath(os.path.join(here, "../../../shared/peers/extrap-4.2.5")))
    ap.add_argument("--no-extrap", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="perfit runs per rank count; the best is compared")
    args = ap.parse_args()
    args.perfit = os.path.abspath(args.perfit)
    work = args.work or tempfile.mkdtemp(prefix="extrap_compare_")
    os.makedirs(work, exist_ok=True)
    make = make_paths if args.params == 1 else make_paths_2
    truth, text = make(args.paths, args.noise, np.random.default_rng(args.seed))
    with open(os.path.join(work, "paths.txt"), "w") as f:
        f.write(text)
    names = [f"r{k}" for k in range(args.paths)]
    # The best of --repeat runs each (a fresh import + batch every time): a run of 1-2 s is
    # exposed to this machine's slow spells far more than Extra-P's minute.
    walls, walls1, walls2 = [], [], []
    for _ in range(args.repeat):
        w, ours, our_coef = run_perfit(args, work, 1)
        walls.append(w)
        w, ours1, _ = run_perfit(args, work, 1, threads=1)
        walls1.append(w)
        w, ours2, _ = run_perfit(args, work, 2)
        walls2.append(w)
    p, p1, p2 = min(walls), min(walls1), min(walls2)
    close = lambda a, b: a is not None and b is not None and abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-12)
    same_choice = (lambda a, b: a == b) if args.params == 1 else close
    if any(not same_choice(ours2.get(n), ours.get(n)) for n in names):
        sys.exit("perfit at 2 ranks chose other hypotheses than at 1 rank")
    if any(not same_choice(ours1.get(n), ours.get(n)) for n in names):
        sys.exit("perfit with 1 thread chose other hypotheses than with its default threads")
    if truth:
        rate = lambda shapes: sum(shapes.get(n) == (e, j) for n, (e, j) in zip(names, truth)) / len(names)
        rate_text = lambda shapes: f"{rate(shapes):.4f}"
    else:
        rate_text = lambda shapes: "-"
    grid = f"points {POINTS}" if args.params == 1 else f"points p {POINTS} x n {N_POINTS}"
    print(f"{args.paths} call paths, {grid}, 5 repetitions, {100 * args.noise:g}% noise")
    print(f"perfit import + batch select (pmnf-search{'' if args.params == 1 else ':p+n'}): {p:.2f} s (1 rank, "
          f"its default threads: {os.cpu_count()} CPUs here), {p1:.2f} s (1 rank, --threads 1), {p2:.2f} s (2 ranks), "
          f"the best of {' '.join(f'{w:.2f}' for w in walls)}, {' '.join(f'{w:.2f}' for w in walls1)} and "
          f"{' '.join(f'{w:.2f}' for w in walls2)}; true hypothesis {rate_text(ours)}")
    have_peer = not args.no_extrap and os.path.isdir(os.path.join(args.peer, "extrap"))
    if not have_peer:
        print(f"speedup_vs_extrap=- speedup_1_thread=- ranks_2_vs_1={p2 / p1:.2f} agree=- "
              f"true_rate_perfit={rate_text(ours)} true_rate_extrap=-")
        return
    e1, theirs, their_coef = run_extrap(args.peer, work, args.params)
    agree = sum(same_choice(ours.get(n), theirs.get(n)) for n in names) / len(names)
    # Where both chose the same hypothesis: the coefficients within 1e-6 relative.
    same = [n for n in names if ours.get(n) == theirs.get(n) and their_coef.get(n) and n in our_coef]
    coef_agree = sum(all(close(x, y) for x, y in zip(our_coef[n], their_coef[n])) for n in same) / max(len(same), 1)
    print(f"Extra-P 4.2.5 --text: {e1:.2f} s; true hypothesis {rate_text(theirs)}; same hypothesis as perfit "
          f"{100 * agree:.2f}%")
    print(f"speedup_vs_extrap={e1 / p:.2f} speedup_1_thread={e1 / p1:.2f} ranks_2_vs_1={p2 / p1:.2f} agree={agree:.4f} "
          f"true_rate_perfit={rate_text(ours)} true_rate_extrap={rate_text(theirs)}"
          + (f" coef_agree={coef_agree:.4f}" if args.params == 1 else ""))


if __name__ == "__main__":
    main()
