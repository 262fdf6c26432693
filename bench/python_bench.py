#!/usr/bin/env python3
"""The Python package against the command line, side by side in one run:

- a fit of 1e6 rows (perfit synth's /pytorch/resnet50, generic, seed 1): `perfit fit` end to
  end (process launch, reading the store, the fit, writing the result) against
  `perfit.fit(df)` on the same rows already in a DataFrame (its columns handed over, the fit,
  the result in memory); the two must give the same constants;
- `import perfit` on top of `import pandas` (fresh interpreters, best of 5);
- `perfit report` of a selection over 1,000 Extra-P call paths (import + select, then the
  report): its size, the time to write it, and Chromium's time to first paint it, measured as
  a headless screenshot of the report less one of an empty page (best of 3).

usage: python_bench.py --perfit build/perfit [--rows 1e6] [--sets 1000] [--work DIR]
Last line: fit_wall_ratio=<perfit.fit / perfit fit> import_extra_s=<s> report_mb=<MB>
report_s=<s> first_paint_s=<s>
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
import harness  # beside this file  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "peers"))


def best(n, fn):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = harness.parser(__doc__.splitlines()[0], expect=False)
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--work")
    a = ap.parse_args()
    exe = os.path.abspath(a.perfit)
    sys.path.insert(0, os.path.join(os.path.dirname(exe), "python"))
    import perfit
    work = a.work or tempfile.mkdtemp(prefix="perfit-python-bench-")
    os.makedirs(work, exist_ok=True)
    run = lambda *args: subprocess.run([exe, *args], cwd=work, check=True, capture_output=True, text=True)

    # ---- a fit of 1e6 rows: CLI end to end against perfit.fit on a DataFrame ----
    run("synth", "--out", "big.h5", "--rows", str(int(a.rows)), "--set", "/pytorch/resnet50", "--force")
    cli = best(3, lambda: run("fit", "--data", "big.h5", "--set", "/pytorch/resnet50", "--model", "generic",
                              "--seed", "1", "--out", "cli.h5", "--force"))
    df = perfit.read_store(os.path.join(work, "big.h5"), "/pytorch/resnet50")
    fits = []
    py = best(3, lambda: fits.append(perfit.fit(df, model="generic", target=df.attrs["target"], seed=1)))
    same = perfit.load(os.path.join(work, "cli.h5")).values == fits[-1].values
    print(f"fit of {len(df)} rows: perfit fit {cli:.3f} s, perfit.fit {py:.3f} s, same constants: {same}")

    # ---- import cost ----
    py3 = sys.executable
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(exe), "python"))
    t_pandas = best(5, lambda: subprocess.run([py3, "-c", "import pandas"], env=env, check=True))
    t_both = best(5, lambda: subprocess.run([py3, "-c", "import pandas, perfit"], env=env, check=True))
    print(f"import pandas {t_pandas:.3f} s, import pandas, perfit {t_both:.3f} s")

    # ---- a report of 1,000 sets ----
    from extrap_compare import make_paths
    _, text = make_paths(a.sets, 0.02, np.random.default_rng(1))
    with open(os.path.join(work, "paths.txt"), "w") as f:
        f.write(text)
    run("import", "paths.txt", "--format", "extrap", "--out", "paths.h5", "--set", "/x", "--force")
    shutil.rmtree(os.path.join(work, "sel"), ignore_errors=True)
    run("select", "--data", "paths.h5", "--set", "/x/*/time", "--models", "pmnf-search", "--out", "sel")
    t = time.perf_counter()
    run("report", "sel", "--out", "report.html", "--force")
    report_s = time.perf_counter() - t
    mb = os.path.getsize(os.path.join(work, "report.html")) / 1e6
    chromium = shutil.which("chromium")
    paint = float("nan")
    if chromium:
        with open(os.path.join(work, "empty.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body></body></html>")

        def shot(page):
            subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--no-zygote", "--single-process",  # forked renderers hang (report_test.py)
                            "--user-data-dir=" + os.path.join(work, "chromium"), "--window-size=1280,900",
                            "--screenshot=" + os.path.join(work, "shot.png"), "file://" + os.path.join(work, page)],
                           check=True, capture_output=True)

        paint = best(3, lambda: shot("report.html")) - best(3, lambda: shot("empty.html"))
    print(f"report of {a.sets} sets: {mb:.2f} MB in {report_s:.1f} s; first paint {paint:.2f} s")
    print(f"fit_wall_ratio={py / cli:.3f} import_extra_s={t_both - t_pandas:.3f} report_mb={mb:.2f} "
          f"report_s={report_s:.1f} first_paint_s={paint:.2f}")


if __name__ == "__main__":
    main()
