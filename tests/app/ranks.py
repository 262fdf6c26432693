"""Helpers shared by the CLI tests that run perfit under mpiexec and signal its ranks."""
import glob
import os
import shutil
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
