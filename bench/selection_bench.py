#!/usr/bin/env python3
"""Issue #14's benchmark: on the MLPerf Training v0.7 table (data/mlperf), for every series
(benchmark x accelerator family x framework) with at least 4 distinct accelerator counts, hold
out the largest count and predict it from the others with
  - perfit's automatic choice: `perfit select` (extrapolation criterion, every built-in that
    reads p and the two naive predictors, p bound to n_accelerators) with `--lambda auto`,
    winner written and predicted;
  - every fixed model select offers, each fitted by `perfit fit`;
  - naive extrapolation from the last point: the time at the largest training count (flat),
    and that time scaled perfectly (t_last * n_last / n).
Prints per series the absolute percentage error (APE, mean over the held-out rows) and per
method the median over series; last line:
  median_ape_auto=<a> best_fixed=<name>:<b> naive_flat=<c> naive_linear=<d> auto_not_worse_than_fixed=<bool> auto_not_worse_than_naive=<bool>
(selection may choose a naive predictor, so the rule against them is "not worse than the better";
and since issue 24 Amdahl's law goes first unless the data say otherwise, so the rule against
the fixed models is "not worse than the best", the fair comparison of issue 24).

usage: selection_bench.py --perfit PATH [--work DIR] [--expect NAME=VALUE ...]
"""
import collections
import csv
import json
import os
import statistics
import subprocess
import tempfile

import claims  # beside this file: the last line and its --expect checks
import harness

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "data", "mlperf", "mlperf_training_v0.7_scores.csv")
TARGET = "time_to_train_s_olympic_mean"
MODELS = ["amdahl", "usl", "power", "pmnf"]  # the built-ins that read only p
NAIVE = ["naive-ideal", "naive-loglog", "ideal-fit"]  # select's naive candidates (the references below, as models)


def run(perfit, work, *args):
    r = subprocess.run([perfit, *args], capture_output=True, text=True, cwd=work)
    if r.returncode != 0:
        raise SystemExit(f"perfit {' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return r.stdout


def series_rows():
    with open(TABLE) as f:
        rows = list(csv.DictReader(f))
    groups = collections.defaultdict(list)
    for r in rows:
        if r[TARGET] and r["n_accelerators"]:
            groups[(r["benchmark"], r["accelerator_family"], r["framework"])].append(r)
    return {k: v for k, v in sorted(groups.items()) if len({int(r["n_accelerators"]) for r in v}) >= 4}, rows[0].keys()


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(header))
        w.writeheader()
        w.writerows(rows)


def predict_ape(perfit, work, result, test_csv, measured):
    run(perfit, work, "predict", "--result", result, "--grid", test_csv, "--out", result + ".csv", "--force")
    with open(os.path.join(work, result + ".csv")) as f:
        pred = [float(r["predicted_" + TARGET]) for r in csv.DictReader(f)]
    return 100 * statistics.mean(abs(p - m) / m for p, m in zip(pred, measured))


def main():
    ap = harness.parser(__doc__.split("\n")[0])
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    perfit = os.path.abspath(a.perfit)
    work = a.work or tempfile.mkdtemp(prefix="perfit_selection_")
    os.makedirs(work, exist_ok=True)
    groups, header = series_rows()
    ape = collections.defaultdict(list)
    print(f"{'series':42s} {'n held out':>10s} {'auto (winner)':>22s} " + " ".join(f"{m:>9s}" for m in MODELS)
          + f" {'flat':>9s} {'linear':>9s}")
    for i, (key, rows) in enumerate(groups.items()):
        largest = max(int(r["n_accelerators"]) for r in rows)
        train = [r for r in rows if int(r["n_accelerators"]) < largest]
        test = [r for r in rows if int(r["n_accelerators"]) == largest]
        measured = [float(r[TARGET]) for r in test]
        write_csv(os.path.join(work, f"train{i}.csv"), header, train)
        write_csv(os.path.join(work, f"test{i}.csv"), header, test)
        store, s = f"s{i}.h5", "/mlperf/series"
        if os.path.exists(os.path.join(work, store)):
            os.remove(os.path.join(work, store))
        run(perfit, work, "import", f"train{i}.csv", "--out", store, "--set", s, "--target", TARGET)
        common = ["--data", store, "--set", s, "--factors", "p=n_accelerators"]
        sel = json.loads(run(perfit, work, "select", *common, "--models", ",".join(MODELS + NAIVE), "--lambda", "auto",
                             "--out", f"auto{i}.h5", "--force", "--json"))
        ape["auto"].append(predict_ape(perfit, work, f"auto{i}.h5", f"test{i}.csv", measured))
        for m in MODELS:
            run(perfit, work, "fit", *common, "--model", m, "--out", f"{m}{i}.h5", "--force", "--progress-every", "0")
            ape[m].append(predict_ape(perfit, work, f"{m}{i}.h5", f"test{i}.csv", measured))
        last_n = max(int(r["n_accelerators"]) for r in train)
        last_t = statistics.mean(float(r[TARGET]) for r in train if int(r["n_accelerators"]) == last_n)
        ape["flat"].append(100 * statistics.mean(abs(last_t - m) / m for m in measured))
        lin = last_t * last_n / largest
        ape["linear"].append(100 * statistics.mean(abs(lin - m) / m for m in measured))
        name = "/".join(key)
        print(f"{name:42s} {largest:>10d} {ape['auto'][-1]:>12.1f}% ({sel['best']:>6s}) "
              + " ".join(f"{ape[m][-1]:>8.1f}%" for m in MODELS)
              + f" {ape['flat'][-1]:>8.1f}% {ape['linear'][-1]:>8.1f}%")
    med = {k: statistics.median(v) for k, v in ape.items()}
    best_fixed = min(MODELS, key=lambda m: med[m])
    print(f"median APE over {len(groups)} series: " + ", ".join(f"{k} {v:.1f}%" for k, v in med.items()))
    claims.last_line({"median_ape_auto": f"{med['auto']:.2f}", "best_fixed": f"{best_fixed}:{med[best_fixed]:.2f}",
                      "naive_flat": f"{med['flat']:.2f}", "naive_linear": f"{med['linear']:.2f}",
                      "auto_not_worse_than_fixed": all(med["auto"] <= med[m] for m in MODELS),
                      "auto_not_worse_than_naive": med["auto"] <= min(med["flat"], med["linear"])}, a.expect)


if __name__ == "__main__":
    main()
