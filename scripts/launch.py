"""How perfit is started on R ranks, the one place scripts/, bench/ and tests/ take it from:
Open MPI allowed to run as root (CI and the chroot checks run as root) and the launcher prefix,
`mpiexec -n R --oversubscribe` here or `srun -n R` steps inside a Slurm allocation.
"""
import os
import shutil

# Open MPI refuses to start as root without these.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

DEFAULT_FLAGS = {"mpiexec": ["--oversubscribe"], "srun": ["--mpi=pmix"]}


def prefix(ranks, launcher="mpiexec", flags=None, executable=None, bare_one=True):
    """The command prefix that runs a program on `ranks` ranks. mpiexec on one rank is left out
    (bare_one) so that one rank measures perfit alone; srun always starts a job step. flags: the
    launcher's extra flags [--oversubscribe: R ranks on however many cores there are; srun:
    --mpi=pmix]; executable: the launcher's path [found on PATH]."""
    if launcher not in DEFAULT_FLAGS:
        raise ValueError(f"launcher: found '{launcher}', expected mpiexec or srun")
    if launcher == "mpiexec" and ranks == 1 and bare_one:
        return []
    exe = executable or shutil.which(launcher) or launcher
    return [exe, "-n", str(ranks), *(DEFAULT_FLAGS[launcher] if flags is None else flags)]
