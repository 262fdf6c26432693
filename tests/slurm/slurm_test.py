#!/usr/bin/env python3
"""The real job scripts of slurm/ submitted with sbatch to the local Slurm that
scripts/slurm-local.sh starts (the CTest fixture around this test): fit.sbatch on 2 tasks
equals the fit run with mpiexec; batch.sbatch on 2 tasks fits a 2 x 2 manifest; array.sbatch
runs 3 elements with %A_%a logs; scaling-strong.sbatch runs a 1,2-rank series as srun steps;
a fit.sbatch job sent USR1 mid-fit checkpoints, requeues
itself (Restarts=1), resumes and ends with the uninterrupted result; a job whose perfit
fails ends FAILED with perfit's message in its log and is not requeued. Every job a test
submitted is cancelled when the test ends.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec, --source).
"""
import csv
import glob
import json
import os
import re
import subprocess
import sys
import time

import pytest

import ranks

perfit, work, mpiexec = ranks.arguments()
source = ranks.SOURCE
slurm_dir = os.path.join(source, "slurm")
env = dict(ranks.ENV, PERFIT=perfit, PYTHON=sys.executable)
failures, jobs = [], []
KEYS = ["params", "cost", "generations", "evaluations", "stop_reason"]


def sh(*cmd, check=True, timeout=120):
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def submit(script, *args, sbatch_args=(), wait=True):
    """sbatch slurm/SCRIPT ARGS; with wait, returns once the job (all elements) ended."""
    r = sh("sbatch", "--parsable", *(["--wait"] if wait else []), *sbatch_args,
           os.path.join(slurm_dir, script), *args, check=False, timeout=240)
    m = re.match(r"(\d+)", r.stdout.strip())
    if not m:
        raise RuntimeError(f"sbatch {script}: {r.stdout}{r.stderr}")
    jobs.append(m.group(1))
    return m.group(1), r.returncode


def wait_for(test, what, timeout):
    """test()'s first true value, polled every 0.2 s; raises (failing the test) past the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = test()
        if found:
            return found
        time.sleep(0.2)
    raise TimeoutError(f"{what}: not seen within {timeout} s")


def job_field(job, field):
    r = sh("scontrol", "show", "job", job, check=False)
    m = re.search(rf"\b{field}=(\S+)", r.stdout)
    return m.group(1) if m else None


def show(path):
    r = sh(perfit, "show", path, "--json", check=False)
    return json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr}


def same(a, b, what):
    ra, rb = show(a), show(b)
    for k in KEYS:
        if ra.get(k) != rb.get(k):
            failures.append(f"{what}: {k} {rb.get(k)} != {ra.get(k)}")


def log_of(pattern):
    files = glob.glob(os.path.join(work, pattern))
    return open(files[0]).read() if files else ""


# ---- the job scripts of slurm/ on the local Slurm ----
@pytest.fixture(scope="module")
def store():
    """s.h5: two synthetic sets of 3,000 rows."""
    sh(perfit, "synth", "--out", "s.h5", "--rows", "3000", "--set", "/mxnet/vgg16", "--set", "/pytorch/bert",
       "--force")
    return "s.h5"


@pytest.fixture(autouse=True)
def cancel_jobs_left():
    """Every job a test submitted is cancelled when the test ends (a finished job is not
    touched), so that a failing test leaves nothing running on the local Slurm."""
    yield
    if jobs:
        subprocess.run(["scancel", *jobs], capture_output=True)
        del jobs[:]


def test_fit_sbatch_on_2_tasks_equals_mpiexec(store):
    fit = ["--data", store, "--set", "/mxnet/vgg16", "--max-generations", "120", "--mode", "sync",
           "--progress-every", "0"]
    job, rc = submit("fit.sbatch", *fit, "--out", "slurm_fit.h5")
    sh(*ranks.command(perfit, mpiexec, 2, "fit", *fit, "--out", "mpi_fit.h5"))
    if rc != 0 or job_field(job, "JobState") != "COMPLETED":
        failures.append(f"fit.sbatch: exit {rc}, state {job_field(job, 'JobState')}\n{log_of(f'perfit-fit-{job}.out')}")
    else:
        same("mpi_fit.h5", "slurm_fit.h5", "fit.sbatch vs mpiexec")


def test_batch_sbatch_fits_2_sets_x_2_models(store):
    with open(os.path.join(work, "m.yaml"), "w") as f:
        f.write("data: s.h5\nfits:\n  - sets: ['/mxnet/vgg16', '/pytorch/bert']\n    models: [amdahl, usl]\n"
                "    options: {de: {max_generations: 60}}\n")
    job, rc = submit("batch.sbatch", "m.yaml", "results")
    rows = []
    if os.path.exists(os.path.join(work, "results", "summary.csv")):
        rows = list(csv.DictReader(open(os.path.join(work, "results", "summary.csv"))))
    results = glob.glob(os.path.join(work, "results", "*.h5"))
    if rc != 0 or len(results) != 4 or len(rows) != 4 or any(r["status"] != "ok" for r in rows):
        failures.append(f"batch.sbatch: exit {rc}, {len(results)} results, summary {rows}\n"
                        f"{log_of(f'perfit-batch-{job}.out')[-2000:]}")


def test_array_sbatch_runs_3_elements_with_their_logs(store):
    with open(os.path.join(work, "fits.txt"), "w") as f:
        f.write("# one perfit fit per line\n")
        for i, m in enumerate(["amdahl", "usl", "gustafson"], 1):
            f.write(f"--data s.h5 --set /pytorch/bert --model {m} --out 'array {i}.h5'\n\n")
    job, rc = submit("array.sbatch", "fits.txt", sbatch_args=["--array=1-3"])
    logs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, f"perfit-array-{job}_*.out")))
    outs = [os.path.exists(os.path.join(work, f"array {i}.h5")) for i in (1, 2, 3)]
    if rc != 0 or not all(outs) or logs != [f"perfit-array-{job}_{i}.out" for i in (1, 2, 3)]:
        failures.append(f"array.sbatch: exit {rc}, results {outs}, logs {logs}")


def test_usr1_mid_fit_checkpoints_requeues_and_resumes_to_the_same_result(store):
    # slow_ms only sleeps: a sync fit's result does not depend on it
    long_fit = ["--data", "s.h5", "--set", "/mxnet/vgg16", "--max-generations", "300", "--mode", "sync",
                "--progress-every", "0"]
    job, _ = submit("fit.sbatch", *long_fit, "--slow-island", "0", "--slow-ms", "60", "--checkpoint-every", "20",
                    "--out", "preempted.h5", wait=False)
    sh(*ranks.command(perfit, mpiexec, 2, "fit", *long_fit, "--out", "uninterrupted.h5"))
    ck = os.path.join(work, "perfit-checkpoints", job, "checkpoint.h5")
    # USR1 once the first checkpoint exists, while the job runs (300 generations of 60 ms).
    wait_for(lambda: os.path.exists(ck), f"the checkpoint of job {job}", 60)
    state = job_field(job, "JobState")
    if state != "RUNNING":
        raise RuntimeError(f"preemption: job {job} is {state} at its first checkpoint, expected RUNNING")
    sh("scancel", "--signal=USR1", "--batch", job)
    wait_for(lambda: job_field(job, "JobState") in ("COMPLETED", "FAILED", "CANCELLED"),
             f"the end of the preempted and requeued job {job}", 150)
    log = log_of(f"perfit-fit-{job}.out")
    if job_field(job, "JobState") != "COMPLETED" or job_field(job, "Restarts") != "1":
        failures.append(f"preemption: state {job_field(job, 'JobState')}, restarts {job_field(job, 'Restarts')}\n{log[-3000:]}")
    elif "requeueing" not in log or "restart 1" not in log or "resuming from" not in log:
        failures.append(f"preemption: the log does not show checkpoint, requeue and resume\n{log[-3000:]}")
    else:
        same("uninterrupted.h5", "preempted.h5", "preempted and resumed vs uninterrupted")


def test_scaling_strong_sbatch_runs_each_point_as_an_srun_step(store):
    job, rc = submit("scaling-strong.sbatch", "--data", "s.h5", "--set", "/mxnet/vgg16", "--ranks", "1,2",
                     "--seeds", "1", "--reference-generations", "400", "--out", "scaling")
    runs = list(csv.DictReader(open(os.path.join(work, "scaling", "scaling.csv")))) \
        if os.path.exists(os.path.join(work, "scaling", "scaling.csv")) else []
    if rc != 0 or sorted(r["ranks"] for r in runs) != ["1", "2"] or \
            not os.path.exists(os.path.join(work, "scaling", "speedup.png")):
        failures.append(f"scaling-strong.sbatch: exit {rc}, runs {runs}\n"
                        f"{log_of(f'perfit-scaling-strong-{job}.out')[-2000:]}")


def test_a_failing_perfit_fails_the_job_without_a_requeue(store):
    job, rc = submit("fit.sbatch", "--data", "s.h5", "--set", "/no/such", "--out", "bad.h5")
    log = log_of(f"perfit-fit-{job}.out")
    lines = [l for l in log.splitlines() if l.startswith("perfit: error")]
    if job_field(job, "JobState") != "FAILED" or job_field(job, "Restarts") != "0" or \
            len(lines) != 1 or "'/no/such'" not in lines[0]:
        failures.append(f"failing job: state {job_field(job, 'JobState')}, restarts "
                        f"{job_field(job, 'Restarts')}\n{log}")
