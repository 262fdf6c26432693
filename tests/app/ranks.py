"""Helpers shared by the CLI tests that run perfit under mpiexec and signal its ranks."""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

INTERRUPTED = 75  # perfit's exit code for "checkpointed, resumable"
# Open MPI refuses to run as root without these (tests run as root in CI).
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def arguments():
    """PERFIT_EXE WORKDIR MPIEXEC from the command line; WORKDIR is emptied first."""
    perfit, work, mpiexec = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return perfit, work, mpiexec


MLPERF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "mlperf",
                      "mlperf_training_v0.7_scores.csv")


def write_mlperf_series(path, benchmark, accelerator, framework, where=lambda row: True):
    """The shipped MLPerf table's rows of one series (and `where` them), header first, as CSV."""
    with open(MLPERF) as f:
        rows = list(csv.DictReader(f))
    keep = [r for r in rows if r["benchmark"] == benchmark and r["accelerator_family"] == accelerator
            and r["framework"] == framework and where(r)]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(keep)
    return keep


class Cli:
    """perfit run in WORKDIR (under mpiexec with n > 1), its failures collected for one report."""

    def __init__(self, perfit, work, mpiexec):
        self.perfit, self.work, self.mpiexec = perfit, work, mpiexec
        self.failures = []

    def run(self, *args, n=1):
        return subprocess.run(command(self.perfit, self.mpiexec, n, *args), capture_output=True, text=True,
                              cwd=self.work, env=ENV, timeout=300)

    def expect(self, args, code, *needles, n=1):
        """Run; a failure unless it exits with code and prints every needle."""
        r = self.run(*args, n=n)
        out = r.stdout + r.stderr
        if r.returncode != code:
            self.failures.append(f"{args}: exit {r.returncode}, expected {code}\n{out[-3000:]}")
        for s in needles:
            if s not in out:
                self.failures.append(f"{args}: output lacks {s!r}\n{out[-3000:]}")
        return r

    def as_json(self, r, what):
        try:
            return json.loads(r.stdout)
        except ValueError:
            self.failures.append(f"{what}: not JSON\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
            return {}

    def report(self):
        """Print the failures and exit 1 if there were any."""
        for f in self.failures:
            print("FAIL:", f)
        print(f"{len(self.failures)} failure(s)")
        raise SystemExit(1 if self.failures else 0)


def command(perfit, mpiexec, n, *args):
    """perfit ARGS, under `mpiexec -n N --oversubscribe` when N > 1."""
    base = [perfit, *args]
    return base if n == 1 else [mpiexec, "-n", str(n), "--oversubscribe", *base]


def rank_pids(tag):
    """Processes whose argv[0] is perfit and whose command line holds tag (not mpiexec)."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(os.path.join(d, "cmdline"), "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"perfit") and tag.encode() in b" ".join(argv):
            pids.append(int(os.path.basename(d)))
    return pids
