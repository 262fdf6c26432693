"""Helpers shared by the Python tests: the harness's arguments, perfit under mpiexec, waiting
for events (Watched) and signalling ranks."""
import csv
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "scripts"))
from launch import ENV, prefix  # noqa: E402  (scripts/launch.py: how scripts, benchmarks and tests start perfit)

INTERRUPTED = 75  # perfit's exit code for "checkpointed, resumable"


PERFIT = WORK = MPIEXEC = SOURCE = None


def configure(perfit, work, mpiexec, source):
    """Called once by tests/conftest.py with pytest's options; empties WORK."""
    global PERFIT, WORK, MPIEXEC, SOURCE
    PERFIT, WORK, MPIEXEC, SOURCE = os.path.abspath(perfit), os.path.abspath(work), mpiexec, os.path.abspath(source)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)


def arguments():
    """(perfit executable, work directory, mpiexec) as the harness was given them."""
    if PERFIT is None:
        raise RuntimeError("run the tests with pytest (tests/conftest.py passes --perfit and --work)")
    return PERFIT, WORK, MPIEXEC


MLPERF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "mlperf",
                      "mlperf_training_v0.7_scores.csv")


RESNET_FACTORS = "p=gpus,b=batch_per_gpu,d=1281167,epochs=1"


def fit_resnet_example(expect, *needles):
    """README's tour in WORK: data/examples/resnet50_epochs.csv imported as runs.h5
    /pytorch/resnet50 and `generic` fitted with its own column names bound, to g.h5."""
    csv_path = os.path.join(SOURCE, "data", "examples", "resnet50_epochs.csv")
    expect(["import", csv_path, "--out", "runs.h5", "--set", "/pytorch/resnet50", "--target", "epoch_s"], 0)
    expect(["fit", "--data", "runs.h5", "--set", "/pytorch/resnet50", "--model", "generic", "--factors",
            RESNET_FACTORS, "--out", "g.h5", "--max-generations", "150"], 0, "wrote g.h5", *needles)


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
    """perfit run in WORKDIR (under mpiexec with n > 1); what goes wrong is appended to
    `failures`, the test module's list that the harness (tests/conftest.py) reports."""

    def __init__(self, perfit, work, mpiexec, failures):
        self.perfit, self.work, self.mpiexec = perfit, work, mpiexec
        self.failures = failures

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
        if "HDF5-DIAG" in out:
            self.failures.append(f"{args}: HDF5 error stack dumped\n{out[-3000:]}")
        return r

    def as_json(self, r, what):
        try:
            return json.loads(r.stdout)
        except ValueError:
            self.failures.append(f"{what}: not JSON\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
            return {}



def command(perfit, mpiexec, n, *args):
    """perfit ARGS, under `mpiexec -n N --oversubscribe` when N > 1 (with the sanitizer options
    that ranks need, PERFIT_RANKS_ASAN_OPTIONS, in a sanitized build's tests)."""
    ranks_asan = os.environ.get("PERFIT_RANKS_ASAN_OPTIONS") if n > 1 else None
    return [*prefix(n, executable=mpiexec), *(["-x", "ASAN_OPTIONS=" + ranks_asan] if ranks_asan else []),
            perfit, *args]


def descendants(pid):
    """Every process below pid (children, their children...), from /proc."""
    children = {}
    for d in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(d.split("/")[2]))
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def with_progress(args):
    """args with a progress line per generation, the event Watched.wait_generation waits for
    (result-neutral: a resume accepts it)."""
    i = args.index("--progress-every")
    return [*args[:i], "--progress-every", "1", *args[i + 2:]]


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


class Missed(AssertionError):
    """An awaited event (a line, a file) did not come before its deadline or before the process ended."""


class Watched:
    """A process whose stderr is read line by line in a thread, so that a test can act on an
    observed event (a progress line, a checkpoint file) instead of after a fixed sleep. A wait
    whose deadline passes, or whose process ends first, kills the process and raises Missed:
    the test fails instead of carrying on."""

    def __init__(self, cmd, cwd, env=None, stdout=subprocess.PIPE):
        self.p = subprocess.Popen(cmd, cwd=cwd, env=env or ENV, stdout=stdout, stderr=subprocess.PIPE,
                                  text=True)
        self.lines, self._out = [], []
        self._new = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._out_reader = threading.Thread(
            target=lambda: self._out.append(self.p.stdout.read() if self.p.stdout else ""), daemon=True)
        self._out_reader.start()

    def _read(self):
        for line in self.p.stderr:
            with self._new:
                self.lines.append(line)
                self._new.notify_all()
        with self._new:
            self._new.notify_all()

    def _give_up(self, what, timeout):
        ended = self.p.poll()
        # mpiexec's ranks too (Open MPI puts them in process groups of their own): a rank left
        # behind would keep running and hold CTest's pipes open until the test's TIMEOUT.
        for pid in [self.p.pid, *descendants(self.p.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.p.wait()
        raise Missed(f"{what}: " + (f"the process ended first (exit {ended})" if ended is not None
                                    else f"not seen within {timeout} s") +
                     "\n" + "".join(self.lines)[-1500:])

    def wait_line(self, test, what, timeout=60):
        """The first stderr line for which test(line) is true; fails past the deadline."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._new:
            while True:
                for line in self.lines[seen:]:
                    if test(line):
                        return line
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or (not self._reader.is_alive() and seen == len(self.lines)):
                    break
                self._new.wait(min(left, 0.05))
        self._give_up(what, timeout)

    def wait_generation(self, generation, epoch_generations=None, timeout=60):
        """Waits for a progress line (--progress-every 1) at or past `generation`: a serial fit
        prints one per generation (gen=N), islands one per epoch (epoch=N) of
        epoch_generations generations (--migration-interval)."""
        pattern = re.compile(r"\b(gen|epoch)=(\d+)")

        def reached(line):
            m = pattern.search(line)
            if not m:
                return False
            if m.group(1) == "epoch" and epoch_generations is None:
                raise AssertionError(f"an epoch progress line, but no epoch length was given: {line}")
            return int(m.group(2)) * (epoch_generations or 1 if m.group(1) == "epoch" else 1) >= generation

        return self.wait_line(reached, f"a progress line at generation >= {generation}", timeout)

    def wait_until(self, test, what, timeout=60):
        """test()'s first true value, polled while the process runs; fails past the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.p.poll() is None:
            found = test()
            if found:
                return found
            time.sleep(0.01)
        self._give_up(what, timeout)

    def wait_files(self, pattern, what, timeout=60):
        """Paths matching the glob `pattern`, once there are any."""
        return self.wait_until(lambda: glob.glob(pattern), what, timeout)

    def signal(self, sig, pids=None):
        """Sends sig to the process (or to pids, which must be some); fails if it already ended."""
        name = signal.Signals(sig).name
        if self.p.poll() is not None:
            self._give_up(f"sending {name}", 0)
        if pids is not None and not pids:
            self._give_up(f"sending {name}: no rank processes found", 0)
        for pid in pids if pids is not None else [self.p.pid]:
            os.kill(pid, sig)

    def finish(self, timeout=120):
        """(exit code, stdout, stderr) once the process ends; fails past the deadline."""
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._give_up("the process to end", timeout)
        self._reader.join()
        self._out_reader.join()
        return self.p.returncode, "".join(self._out), "".join(self.lines)
