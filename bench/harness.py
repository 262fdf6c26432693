"""What the benchmarks (and bench/peers) share: their command line (`--perfit`, the options of
each benchmark, `--expect` claims on the last line), Open MPI allowed to run as root (CI runs as
root), and the command prefix that runs perfit on R ranks. The tests' harness is
tests/app/ranks.py; a benchmark's last line and its claims are bench/claims.py.
"""
import argparse
import os
import shutil

import claims

# Open MPI refuses to start as root without these.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def mpiexec(ranks):
    """`mpiexec -n R --oversubscribe`: R ranks on however many cores there are."""
    return [shutil.which("mpiexec") or "mpiexec", "-n", str(ranks), "--oversubscribe"]


def launch(ranks):
    """The prefix that runs perfit on `ranks` ranks: mpiexec for more than one, nothing for one."""
    return mpiexec(ranks) if ranks > 1 else []


def parser(doc, perfit_required=True, expect=True):
    """An argument parser whose description is the benchmark's docstring, with --perfit (the
    binary) and --expect (claims on the last line: claims.py)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfit", required=perfit_required, help="the perfit binary, e.g. build-test/perfit")
    if expect:
        claims.add_expect(ap)
    return ap
