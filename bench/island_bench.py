#!/usr/bin/env python3
"""Island-model throughput of the DE path: `perfit fit` on a 1e6-row synthetic set at 1 and 2
MPI ranks (one island per rank, each evaluating all rows), same generation budget, no early
stop. Row compression and the separable solve are off (--no-compress --separable off): with
them a 1e6-row fit is a few hundred distinct configurations and a 2-D search whose DE time
rounds to 0 s, so the bench would measure nothing; it measures what the DE does per row.
Prints evals/s at each rank count, the strong-scaling efficiency of the throughput
(evals/s at 2 ranks / (2 x evals/s at 1 rank)) and the fraction of wall time in migration.

usage: island_bench.py --perfit PERFIT [--rows 1e6] [--generations 60]
Last line: efficiency_2_ranks=<x> migration_fraction=<y>
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import claims  # beside this file
import harness

args = harness.fits_on_synth(__doc__, "60")
perfit, rows, gens = args.perfit, args.rows, args.generations
env = harness.ENV

with tempfile.TemporaryDirectory() as tmp:
    harness.synth(perfit, tmp, "b.h5", rows, "/pytorch/resnet50")
    with open(os.path.join(tmp, "c.yaml"), "w") as f:
        f.write(f"data: b.h5\nset: /pytorch/resnet50\nprogress_every: 0\npolish: false\n"
                f"de: {{max_generations: {gens}, tol: 0}}\nislands: {{interval: 10}}\n")
    result = {}
    for n in (1, 2):
        r = subprocess.run([*harness.mpiexec(n), perfit, "fit", "--config", "c.yaml",
                            "--no-compress", "--separable", "off", "--ranks-per-island", "1",
                            "--out", f"r{n}.h5", "--json"], cwd=tmp, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"perfit fit on {n} rank(s) failed:\n{r.stderr}")
        j = json.loads(r.stdout)
        m = re.search(r"migration_time=([0-9.e+-]+)s of ([0-9.e+-]+)s", r.stderr)
        frac = float(m.group(1)) / float(m.group(2)) if m else 0.0
        result[n] = (j["evaluations"] / j["de_seconds"], frac, j)
        print(f"{n} rank(s): {j['evaluations']} evaluations x {j['rows']} rows in {j['de_seconds']:.2f} s "
              f"= {result[n][0]:.4g} evals/s ({result[n][0] * j['rows']:.3g} row-evals/s), "
              f"best cost {j['cost']:.6g}")
    eff = result[2][0] / (2 * result[1][0])
    claims.last_line({"efficiency_2_ranks": eff, "migration_fraction": result[2][1]}, args.expect)
