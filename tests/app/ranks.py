"""Helpers shared by the CLI tests that run perfit under mpiexec and signal its ranks."""
import glob
import os


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
