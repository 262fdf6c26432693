#!/usr/bin/env python3
"""scripts/scaling.py end to end on a small synthetic set at 1 and 2 ranks: strong (islands)
and weak (rows) series each write scaling.csv with every run, an HDF5 set in perfit's layout
that `perfit fit` reads, the self-fit results (usl, amdahl), three PNG plots and the
projection to 1024 ranks.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import csv
import json
import os
import subprocess
import sys

import ranks

perfit, work, _ = ranks.arguments()
source = ranks.SOURCE
env = ranks.ENV
failures = []

subprocess.run([perfit, "synth", "--out", "s.h5", "--rows", "4000", "--set", "/pytorch/resnet50"],
               check=True, cwd=work, stdout=subprocess.DEVNULL)
# ---- strong and weak series at 1 and 2 ranks ----
def test_strong_and_weak_series_at_1_and_2_ranks():
    for mode, split in [("strong", "islands"), ("weak", "rows")]:
        out = f"{mode}_{split}"
        r = subprocess.run([sys.executable, os.path.join(source, "scripts", "scaling.py"), mode, "--split", split,
                            "--data", "s.h5", "--set", "/pytorch/resnet50", "--ranks", "1,2", "--seeds", "2",
                            "--reference-generations", "600", "--perfit", perfit, "--out", out],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
        what = f"scaling.py {mode} --split {split}"
        if r.returncode != 0:
            failures.append(f"{what}: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}")
            continue
        d = os.path.join(work, out)
        rows = list(csv.DictReader(open(os.path.join(d, "scaling.csv"))))
        need = {"ranks", "seed", "rows", "success", "time_to_target_s", "time_per_generation_s", "evals_per_s",
                "row_evals_per_s", "migration_share", "vote_share", "reduce_share", "peak_rss_mib"}
        if len(rows) != 4 or not need <= set(rows[0]) or sorted(int(x["ranks"]) for x in rows) != [1, 1, 2, 2]:
            failures.append(f"{what}: scaling.csv has {len(rows)} rows, columns {list(rows[0]) if rows else []}")
        if mode == "weak" and sorted({int(x["rows"]) for x in rows}) != [2000, 4000]:
            failures.append(f"{what}: weak rows should be 2000 per rank, found {[x['rows'] for x in rows]}")
        if split == "rows" and not any(float(x["reduce_share"]) > 0 for x in rows if x["ranks"] == "2"):
            failures.append(f"{what}: no allreduce time measured at 2 ranks")
        fit = subprocess.run([perfit, "fit", "--data", os.path.join(d, "scaling.h5"), "--set", f"/perfit/{mode}",
                              "--model", "amdahl", "--out", os.path.join(d, "again.h5"), "--json"],
                             cwd=work, env=env, capture_output=True, text=True)
        if fit.returncode != 0 or "s" not in json.loads(fit.stdout or "{}").get("params", {}):
            failures.append(f"{what}: perfit fit cannot read scaling.h5: {fit.stderr[-800:]}")
        for f in ["fit_usl.h5", "fit_amdahl.h5", "projection.csv", "speedup.png", "time_to_target.png", "phases.png"]:
            p = os.path.join(d, f)
            if not os.path.exists(p) or os.path.getsize(p) < 200:
                failures.append(f"{what}: {f} missing or empty")
            elif f.endswith(".png") and open(p, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
                failures.append(f"{what}: {f} is not a PNG")
        proj = list(csv.DictReader(open(os.path.join(d, "projection.csv"))))
        if not any(x["ranks"] == "1024" and x["layout"] == "islands/ring" for x in proj):
            failures.append(f"{what}: projection.csv has no 1024-rank ring row")
        for needle in ["serial fraction s =", "contention sigma =", "falls below 80%", "check against the measured"]:
            if needle not in r.stdout:
                failures.append(f"{what}: the output lacks '{needle}'\n{r.stdout[-1500:]}")
