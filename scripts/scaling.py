#!/usr/bin/env python3
"""Strong and weak scaling experiments of perfit itself, on your data and your machine or
cluster, and a fitted model of perfit's own scaling (docs/scaling.md).

  python3 scripts/scaling.py strong|weak --data STORE.h5 --set S [--model generic]
      [--ranks 1,2,4] [--split islands|rows] [--seeds 3] [--launcher mpiexec|srun] --out DIR

Every point (ranks x seed) is one `perfit fit` to a target cost: the target is found once per
data set from a long 1-rank reference fit (its cost x (1 + --margin)). Modes:
  strong --split islands   a fixed total population (--population) divided among R islands
  strong --split rows      one population, the rows sharded over R ranks (--ranks-per-island R)
  weak   --split islands   a fixed population per island, R islands on the same rows
  weak   --split rows      a fixed number of rows per rank (--rows-per-rank): the set is
                           subsampled with a stride, or replicated whole (tiled), to R x that
The fits run with --no-compress (compression would evaluate only the distinct
configurations and hide the rows' cost) unless --compress is given.

Writes DIR/scaling.csv (every run), DIR/scaling.h5 (perfit's own layout: set /perfit/<mode>,
columns p = ranks, rows, population, seed, time_s, time_per_unit_s; readable by `perfit fit`),
fits `usl` and `amdahl` to it with perfit, prints the serial fraction, contention and
coherency, the rank count where the parallel efficiency falls below 80% and the projected
efficiency at 64, 256 and 1024 ranks, draws DIR/speedup.png, DIR/time_to_target.png and
DIR/phases.png, and projects one epoch's cost past this machine (DIR/projection.csv) from the
measured evaluation rate and an MPI ping-pong (`perfit pingpong`; override with
--latency-us/--bandwidth-gbs, e.g. 1.5 / 12 for InfiniBand HDR).
"""
import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

import h5py
import numpy as np

from launch import ENV, prefix
from scaling_model import epoch_model, measured_jitter, NEIGHBOURS


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("mode", choices=["strong", "weak"])
    ap.add_argument("--data", required=True, help="perfit store (HDF5)")
    ap.add_argument("--set", required=True, help="set path, e.g. /pytorch/resnet50")
    ap.add_argument("--model", default="generic", help="model to fit (built-in name or YAML) [generic]")
    ap.add_argument("--ranks", default="1,2,4", help="rank counts, comma-separated [1,2,4]")
    ap.add_argument("--split", choices=["islands", "rows"], default="islands", help="what the ranks share [islands]")
    ap.add_argument("--seeds", type=int, default=3, help="runs per rank count [3]")
    ap.add_argument("--launcher", choices=["mpiexec", "srun"], default="mpiexec",
                    help="mpiexec (here), or srun steps inside a Slurm allocation [mpiexec]")
    ap.add_argument("--launcher-flags", default=None,
                    help="extra launcher flags [mpiexec: --oversubscribe; srun: --mpi=pmix]")
    ap.add_argument("--perfit", default=os.environ.get("PERFIT", "perfit"), help="perfit binary [$PERFIT or perfit]")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--margin", type=float, default=0.05, help="target = reference cost x (1 + margin) [0.05]")
    ap.add_argument("--budget", type=int, default=3000, help="max generations of a run [3000]")
    ap.add_argument("--reference-generations", type=int, default=3000, help="generations of the reference fit [3000]")
    ap.add_argument("--population", type=int, default=128,
                    help="strong islands: the total population divided among the islands [128]")
    ap.add_argument("--rows-per-rank", type=int, default=None,
                    help="weak rows: rows per rank [the set's rows / the largest rank count]")
    ap.add_argument("--compress", action="store_true", help="let perfit compress repeated configurations")
    ap.add_argument("--latency-us", type=float, default=None, help="projection: MPI latency [measured]")
    ap.add_argument("--bandwidth-gbs", type=float, default=None, help="projection: MPI bandwidth [measured]")
    ap.add_argument("--project-rows", type=float, default=1e6, help="projection: rows of the set [1e6]")
    ap.add_argument("--jitter", type=float, default=None,
                    help="projection: relative spread of one rank's time between two syncs [from the 2-rank runs]")
    a = ap.parse_args()
    a.ranks = sorted({int(x) for x in a.ranks.split(",") if x.strip()})
    if not a.ranks or a.ranks[0] < 1:
        ap.error(f"--ranks: found '{a.ranks}', expected positive whole numbers, e.g. 1,2,4")
    if a.launcher_flags is not None:
        a.launcher_flags = a.launcher_flags.split()
    a.perfit = shutil.which(a.perfit) or os.path.abspath(a.perfit)
    return a


def launch(a, ranks):
    """mpiexec (none for one rank) or one srun job step of `ranks` tasks, steps one after another."""
    return prefix(ranks, a.launcher, a.launcher_flags)


def run(cmd, what):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        sys.exit(f"scaling.py: {what} failed (exit {r.returncode}): {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return r, time.perf_counter() - t0


def fit_json(a, cmd, what):
    r, wall = run(cmd, what)
    j = json.loads(r.stdout)
    j["wall_s"] = wall
    return j


def set_rows(path, set_path):
    with h5py.File(path, "r") as h:
        g = h[set_path]
        return len(g[list(g.keys())[0]])


def resized_set(a, rows):
    """DIR/data.h5 set /scaling/r<rows>: the set subsampled with a stride or tiled to `rows`."""
    store = os.path.join(a.out, "data.h5")
    name = f"/scaling/r{rows}"
    if os.path.exists(store):
        with h5py.File(store, "r") as h:
            if name in h:
                return store, name
    with h5py.File(a.data, "r") as h:
        g = h[a.set]
        target = g.attrs["target"]
        target = target.decode() if isinstance(target, bytes) else str(target)
        cols = {k: g[k][:] for k in g.keys()}
    n = len(next(iter(cols.values())))
    idx = np.resize(np.arange(n), rows) if rows > n else np.arange(0, n, n / rows).astype(int)[:rows]
    csv_path = os.path.join(a.out, f"r{rows}.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols.keys())
        for i in idx:
            w.writerow([v[i].decode() if isinstance(v[i], bytes) else repr(v[i].item()) for v in cols.values()])
    run([a.perfit, "import", csv_path, "--out", store, "--set", name, "--target", target,
         "--source", f"scaling.py: {a.set} of {a.data} {'tiled' if rows > n else 'subsampled'} to {rows} rows"],
        f"import of {rows} rows")
    os.remove(csv_path)
    return store, name


def common(a, data, set_path):
    return ["--data", data, "--set", set_path, "--model", a.model, "--progress-every", "0", "--mode", "sync",
            "--json", "--force", *([] if a.compress else ["--no-compress"])]


def reference_target(a, data, set_path, refs):
    key = (data, set_path)
    if key not in refs:
        out = os.path.join(a.out, "runs", f"reference_{len(refs)}.h5")
        j = fit_json(a, [a.perfit, "fit", *common(a, data, set_path), "--max-generations",
                         str(a.reference_generations), "--tol", "0", "--out", out], "the reference fit")
        refs[key] = j["cost"] * (1 + a.margin)
        print(f"reference: {set_path} of {data}: cost {j['cost']:.6g} after {j['generations']} generations "
              f"-> target {refs[key]:.6g}", flush=True)
    return refs[key]


def point(a, ranks, seed, refs, total_rows):
    """One run: the data, the split options, and what it measured."""
    data, set_path, rows = a.data, a.set, total_rows
    split, population = [], None
    if a.split == "rows":
        split = ["--ranks-per-island", str(ranks)]
        if a.mode == "weak":
            rows = a.rows_per_rank * ranks
            data, set_path = resized_set(a, rows)
    elif a.mode == "strong":
        population = max(4, a.population // ranks)
        split = ["--population", str(population)]
    target = reference_target(a, data, set_path, refs)
    out = os.path.join(a.out, "runs", f"{a.mode}_{a.split}_r{ranks}_s{seed}.h5")
    cmd = [*launch(a, ranks), a.perfit, "fit", *common(a, data, set_path), *split, "--seed", str(seed),
           "--target-cost", repr(target), "--max-generations", str(a.budget), "--out", out]
    j = fit_json(a, cmd, f"the run at {ranks} ranks, seed {seed}")
    de = max(j["de_seconds"], 1e-12)
    t = j["timing"]
    ok = j["stop_reason"] == "target_cost"
    pop = population or json.loads(json.dumps(j["config"]["de"]))["population"] or None
    return {
        "mode": a.mode, "split": a.split, "ranks": ranks, "seed": seed, "rows": rows,
        "oversubscribed": int(a.launcher == "mpiexec" and ranks > (os.cpu_count() or 1)),
        "islands": ranks if a.split == "islands" else 1, "population": pop or "",
        "success": int(ok), "time_to_target_s": de if ok else float("nan"),
        "generations": j["generations"], "evaluations": j["evaluations"],
        "time_per_generation_s": de / max(j["generations"], 1), "evals_per_s": j["evaluations"] / de,
        "row_evals_per_s": j["evaluations"] * rows / de,
        "evaluate_share": t["evaluate_seconds"] / de, "migration_share": t["migration_seconds"] / de,
        "vote_share": t["vote_seconds"] / de, "reduce_share": t["reduce_seconds"] / de,
        "peak_rss_mib": j["peak_rss_mib"], "wall_s": j["wall_s"], "cost": j["cost"], "target": target,
    }


def write_outputs(a, rows):
    fields = list(rows[0].keys())
    with open(os.path.join(a.out, "scaling.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    good = [r for r in rows if r["success"] and not r["oversubscribed"]]
    left_out = sorted({r["ranks"] for r in rows if r["oversubscribed"]})
    if left_out:
        print(f"self-fit: leaving out {left_out} ranks (more ranks than this machine's {os.cpu_count()} cores: "
              "they measure the oversubscription, not perfit)")
    if len({r["ranks"] for r in good}) < 2:
        sys.exit("scaling.py: fewer than two rank counts reached the target; raise --budget or --margin")
    csv_path = os.path.join(a.out, "perfit_runs.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["p", "ranks", "rows", "population", "seed", "time_s", "time_per_unit_s"])
        for r in good:
            # weak scaling: work grows with p, so the time per unit of work is time / p
            unit = r["time_to_target_s"] / r["ranks"] if a.mode == "weak" else r["time_to_target_s"]
            w.writerow([r["ranks"], r["ranks"], r["rows"], r["population"] or 0, r["seed"],
                        r["time_to_target_s"], unit])
    store = os.path.join(a.out, "scaling.h5")
    if os.path.exists(store):
        os.remove(store)
    target = "time_per_unit_s" if a.mode == "weak" else "time_s"
    run([a.perfit, "import", csv_path, "--out", store, "--set", f"/perfit/{a.mode}", "--target", target,
         "--source", f"scripts/scaling.py {a.mode} --split {a.split} on {a.set} of {a.data}"], "import of the runs")
    return store


def self_fit(a, store):
    fits = {}
    for model in ["usl", "amdahl"]:
        j = fit_json(a, [a.perfit, "fit", "--data", store, "--set", f"/perfit/{a.mode}", "--model", model,
                         "--progress-every", "0", "--json", "--force", "--out",
                         os.path.join(a.out, f"fit_{model}.h5")], f"the {model} fit of perfit's runs")
        fits[model] = j["params"]
    s, k = fits["usl"]["sigma"], fits["usl"]["kappa"]

    def eff(p):
        return 1.0 / (1.0 + s * (p - 1) + k * p * (p - 1))

    p80 = next((p for p in range(1, 1 << 20) if eff(p) < 0.8), None)
    print(f"amdahl: serial fraction s = {fits['amdahl']['s']:.4g} (t1 = {fits['amdahl']['t1']:.4g} s)")
    print(f"usl: contention sigma = {s:.4g}, coherency kappa = {k:.4g} (t1 = {fits['usl']['t1']:.4g} s)")
    print(f"usl: parallel efficiency falls below 80% at {p80 if p80 else 'more than 1e6'} ranks; projected "
          f"efficiency at 64: {eff(64):.3f}, 256: {eff(256):.3f}, 1024: {eff(1024):.3f}")
    return fits, eff


def plots(a, rows, eff):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ranks = sorted({r["ranks"] for r in rows})
    med = {R: statistics.median([r["time_to_target_s"] for r in rows if r["ranks"] == R and r["success"]] or [math.nan])
           for R in ranks}
    base = med[ranks[0]] * ranks[0]
    speed = [(base / med[R]) if a.mode == "strong" else R * med[ranks[0]] / med[R] for R in ranks]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    grid = np.linspace(1, max(ranks), 100)
    ax[0].plot(ranks, speed, "o-", label="measured (median)")
    ax[0].plot(grid, grid, "k--", label="ideal")
    ax[0].plot(grid, grid * np.array([eff(p) for p in grid]), ":", label="usl fit")
    ax[0].set(xlabel="ranks", ylabel="speedup" if a.mode == "strong" else "scaled speedup", title=f"{a.mode} ({a.split})")
    ax[0].legend()
    ax[1].plot(ranks, [s / R for s, R in zip(speed, ranks)], "o-", label="measured")
    ax[1].axhline(1.0, color="k", ls="--", label="ideal")
    ax[1].plot(grid, [eff(p) for p in grid], ":", label="usl fit")
    ax[1].set(xlabel="ranks", ylabel="parallel efficiency", ylim=(0, 1.2))
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "speedup.png"), dpi=100)
    fig, ax = plt.subplots(figsize=(5, 4))
    for R in ranks:
        ts = [r["time_to_target_s"] for r in rows if r["ranks"] == R and r["success"]]
        ax.plot([R] * len(ts), ts, "o", color="C0", alpha=0.5)
    ax.plot(ranks, [med[R] for R in ranks], "-", color="C0", label="median of the seeds")
    ax.set(xlabel="ranks", ylabel="time to target (s)", title="time to target")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "time_to_target.png"), dpi=100)
    fig, ax = plt.subplots(figsize=(5, 4))
    bottom = np.zeros(len(ranks))
    for phase in ["evaluate", "migration", "vote", "reduce"]:
        share = np.array([statistics.median([r[f"{phase}_share"] for r in rows if r["ranks"] == R]) for R in ranks])
        ax.bar([str(R) for R in ranks], share, bottom=bottom, label=phase)
        bottom += share
    ax.set(xlabel="ranks", ylabel="share of the DE's time (rank 0)", title="phases")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "phases.png"), dpi=100)


def pingpong(a):
    if a.latency_us is not None and a.bandwidth_gbs is not None:
        return a.latency_us * 1e-6, a.bandwidth_gbs * 1e9, "given"
    r, _ = run([*launch(a, 2), a.perfit, "pingpong", "--json"], "perfit pingpong")
    j = json.loads(r.stdout)
    lat = a.latency_us * 1e-6 if a.latency_us is not None else j["latency_us"] * 1e-6
    bw = a.bandwidth_gbs * 1e9 if a.bandwidth_gbs is not None else j["bandwidth_gbs"] * 1e9
    return lat, bw, "measured here (perfit pingpong)"


def project(a, rows, total_rows):
    one = [r for r in rows if r["ranks"] == 1]
    if not one:
        print("projection: no 1-rank run to measure the evaluation rate from; add 1 to --ranks")
        return
    r1 = statistics.median(r["row_evals_per_s"] for r in one)
    gen_pop = statistics.median(r["evaluations"] / max(r["generations"], 1) / r["islands"] for r in one)
    with h5py.File(os.path.join(a.out, "runs", os.listdir(os.path.join(a.out, "runs"))[0]), "r") as h:
        dim = len(h["params"]["name"])
    interval, migrants = 20, 2
    lat, bw, how = pingpong(a)
    jitter = measured_jitter(a, rows)
    islands, rows_split = epoch_model(r1, gen_pop, dim, interval, migrants, lat, bw, 0.0)
    # The check: the model's time per generation against the measured one.
    print(f"projection: {r1:.3g} row-evals/s per rank, {gen_pop:.0f} evaluations per generation and island, "
          f"{dim} params, latency {lat * 1e6:.2f} us, bandwidth {bw / 1e9:.2f} GB/s ({how})")
    print("check against the measured points (time per generation, median of the seeds):")
    for R in sorted({r["ranks"] for r in rows}):
        pts = [r for r in rows if r["ranks"] == R]
        measured = statistics.median(r["time_per_generation_s"] for r in pts)
        n = pts[0]["rows"]
        c, m = islands(R, n, "ring") if a.split == "islands" else rows_split(R, n)
        if a.split == "islands" and a.mode == "strong":
            c *= (a.population // R) / gen_pop  # the island's share of the total population
        print(f"  {R:5d} ranks: measured {measured * 1e3:9.3f} ms, model {(c + m) * 1e3:9.3f} ms"
              f"{'  (oversubscribed: more ranks than cores)' if R > (os.cpu_count() or 1) else ''}")
    print(f"jitter: one rank's time per generation spreads by {100 * jitter:.1f}% "
          f"({'given' if a.jitter is not None else 'from the sync waits measured'}); the projection waits for the "
          "slowest rank at every sync")
    islands, rows_split = epoch_model(r1, gen_pop, dim, interval, migrants, lat, bw, jitter)
    out = []
    N = a.project_rows
    for R in [2 ** k for k in range(11)]:
        for topology in NEIGHBOURS:
            c, m = islands(R, N, topology)
            out.append({"ranks": R, "layout": f"islands/{topology}", "rows": N, "efficiency": c / (c + m)})
        c, m = rows_split(R, N)
        out.append({"ranks": R, "layout": "rows", "rows": N, "efficiency": c / (c + m)})
    with open(os.path.join(a.out, "projection.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
        w.writeheader()
        w.writerows(out)
    print(f"projected efficiency of one epoch on {N:.0e} rows (projection.csv):")
    print("  ranks  " + "  ".join(f"{x:>14s}" for x in ["islands/ring", "islands/torus", "islands/full", "rows"]))
    for R in [64, 256, 1024]:
        e = {o["layout"]: o["efficiency"] for o in out if o["ranks"] == R}
        print(f"  {R:5d}  " + "  ".join(f"{e[k]:14.3f}" for k in ["islands/ring", "islands/torus", "islands/full", "rows"]))


def main():
    a = parse_args()
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    total_rows = set_rows(a.data, a.set)
    if a.mode == "weak" and a.split == "rows" and a.rows_per_rank is None:
        a.rows_per_rank = max(1, total_rows // max(a.ranks))
    refs, rows = {}, []
    for R in a.ranks:
        for seed in range(1, a.seeds + 1):
            r = point(a, R, seed, refs, total_rows)
            rows.append(r)
            print(f"{a.mode} {a.split}: {R} ranks seed {seed}: "
                  + (f"target in {r['time_to_target_s']:.3f} s" if r["success"] else "target not reached")
                  + f", {r['generations']} generations, {r['row_evals_per_s']:.3g} row-evals/s, "
                  f"migration {100 * r['migration_share']:.1f}% vote {100 * r['vote_share']:.1f}% "
                  f"allreduce {100 * r['reduce_share']:.1f}%, {r['peak_rss_mib']:.0f} MiB", flush=True)
    store = write_outputs(a, rows)
    _, eff = self_fit(a, store)
    plots(a, rows, eff)
    project(a, rows, total_rows)
    print(f"wrote {a.out}/scaling.csv, {store} (set /perfit/{a.mode}), speedup.png, time_to_target.png, "
          f"phases.png, projection.csv")


if __name__ == "__main__":
    main()
