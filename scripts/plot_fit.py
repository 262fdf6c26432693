#!/usr/bin/env python3
"""Figures of a perfit fit, from the Python package's perfit.figures (matplotlib): time
against workers (log-log: measured points, a fitted line per measured batch size, the
bootstrap band, the extrapolated range shaded), measured against predicted, residuals against
each factor, and the terms' shares along workers.

usage: plot_fit.py RESULT.h5 --out DIR [--format png,svg,pdf] [--by FACTOR] [--sweep FACTOR]
                   [--at NAME=VALUE,...] [--data STORE.h5 --set PATH] [--perfit PATH]
A result keeps its rows, so it needs nothing else; --data/--set give the rows of results
written before perfit kept them. --sweep picks the factor along which the terms are stacked
(default: the workers, p or the column bound to it), --by the factor with one line per value
(default: the batch size when it varies), --at holds other factors at values that may not have
been measured (default: measured values only). PNGs are 300 dpi. Prints the paths it wrote.
The package is found on PYTHONPATH, else beside --perfit (build/python), else in build/ or
build-test/ of this source tree.
"""
import argparse
import os
import shutil
import sys


def fail(msg, code=2):
    print(f"plot_fit.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def import_perfit(exe):
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(os.path.dirname(os.path.abspath(exe)), "python")] if exe else []
    candidates += [os.path.join(here, "..", b, "python") for b in ("build", "build-test")]
    try:
        import perfit  # noqa: F401
    except ImportError:
        for c in candidates:
            if os.path.exists(os.path.join(c, "perfit", "__init__.py")):
                sys.path.insert(0, c)
                break
        else:
            fail("the Python package perfit is not built: build perfit with -DPERFIT_PYTHON_PACKAGE=ON "
                 "(docs/python.md) or set PYTHONPATH", 6)
    import perfit
    import perfit.figures
    return perfit


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--out", required=True, help="directory for the figures (created)")
    ap.add_argument("--format", default="png", help="comma-separated: png (300 dpi), svg, pdf [png]")
    ap.add_argument("--by", help="one fitted line per measured value of this factor (default: batch size)")
    ap.add_argument("--sweep", help="factor for the stacked terms (default: the workers)")
    ap.add_argument("--at", help="hold other factors at these values along the lines, e.g. nodes=4 "
                                 "(default: the combination measured most often at each worker count)")
    ap.add_argument("--data", help="store with the measured rows (results without kept rows)")
    ap.add_argument("--set", help="set path in --data (default: the one the fit read)")
    ap.add_argument("--perfit", default=shutil.which("perfit") or "", help="the perfit executable (finds the package)")
    a = ap.parse_args()
    formats = [f.strip().lower() for f in a.format.split(",") if f.strip()]
    for f in formats:
        if f not in ("png", "svg", "pdf"):
            fail(f"--format {f}: expected png, svg or pdf")
    at = {}
    for item in (a.at or "").split(","):
        if item.strip():
            name, _, value = item.partition("=")
            try:
                at[name.strip()] = float(value)
            except ValueError:
                fail(f"--at {item}: expected NAME=NUMBER")
    perfit = import_perfit(a.perfit)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figures = perfit.figures
    codes = {perfit.ConfigError: 2, perfit.DataError: 3, perfit.H5Error: 4, perfit.IoError: 6}
    try:
        fit = perfit.load(a.result)
        rows = perfit.read_store(a.data, a.set or fit.info["set"]) if a.data else None
        if a.sweep:
            figures.workers_column(fit, figures.rows_of(fit, rows), a.sweep)  # checked before any work
        made = [("scaling", lambda: figures.scaling(fit, by=a.by, rows=rows, at=at or None)),
                ("measured_vs_predicted", lambda: figures.measured_vs_predicted(fit, rows=rows)),
                ("residuals", lambda: figures.residuals(fit, rows=rows)),
                ("terms", lambda: figures.term_shares(fit, by=a.by, rows=rows, along=a.sweep, at=at or None))]
        os.makedirs(a.out, exist_ok=True)
        for name, make in made:
            fig = make()
            for f in formats:
                print(figures.save(fig, os.path.join(a.out, f"{name}.{f}")))
            plt.close(fig)
    except perfit.PerfitError as e:
        msg = str(e).replace(f"{a.sweep!r}:", f"--sweep {a.sweep}:") if a.sweep else str(e)
        fail(msg, codes.get(type(e), 1))


if __name__ == "__main__":
    main()
