#!/usr/bin/env python3
"""Checkpoint cost: `mpiexec -n 4 perfit fit` (4 islands) on a 1e6-row synthetic set with
checkpoints at the default interval (checkpoint_every 100 generations), side by side with the
same run without checkpoints. Prints the time to write one checkpoint (perfit's own debug
line), its share of the wall time at the default interval, and the wall-time ratio.

usage: checkpoint_bench.py --perfit PERFIT [--rows 1e6] [--generations 200]
Last line: checkpoint_seconds=<s> checkpoint_share=<fraction> wall_ratio=<with/without>
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import harness  # beside this file

args = harness.fits_on_synth(__doc__, "200", expect=False)
perfit, rows, gens = args.perfit, args.rows, args.generations
env = harness.ENV

with tempfile.TemporaryDirectory() as tmp:
    harness.synth(perfit, tmp, "b.h5", rows, "/pytorch/resnet50")
    common = [*harness.mpiexec(4), perfit, "--log-level", "debug", "fit",
              "--data", "b.h5", "--set", "/pytorch/resnet50", "--max-generations", gens, "--tol", "0",
              "--no-polish", "--progress-every", "0", "--json"]
    walls = {}
    for label, extra in [("without", []), ("with", ["--checkpoint-dir", "ck"])]:
        r = subprocess.run([*common, "--out", f"{label}.h5", *extra], cwd=tmp, env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{label} checkpoints failed:\n{r.stderr[-2000:]}")
        walls[label] = json.loads(r.stdout)["seconds"]
        if label == "with":
            writes = [float(m) for m in re.findall(r"checkpoint: epoch \d+ in ([0-9.]+) s", r.stderr)]
    if not writes:
        sys.exit("no checkpoint was written")
    one = sum(writes) / len(writes)
    share = sum(writes) / walls["with"]
    print(f"rows={rows} islands=4 generations={gens} checkpoints={len(writes)} "
          f"wall_without={walls['without']:.2f}s wall_with={walls['with']:.2f}s")
    print(f"checkpoint_seconds={one:.4f} checkpoint_share={share:.5f} "
          f"wall_ratio={walls['with'] / walls['without']:.3f}")
