"""The one harness of the Python tests, which CTest runs one file per test:

    python3 -m pytest -c tests/pytest.ini FILE --perfit EXE --work DIR [--mpiexec M] [--source S]

Options give the perfit executable, a work directory (emptied first), mpiexec and the source
tree to every test module through `ranks` (ranks.arguments(), ranks.SOURCE). A test collects
what went wrong in its module's `failures` list, so that one run reports every broken check;
whatever the list holds after a test fails that test with all of its messages. Waits on events with deadlines live in ranks.Watched."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "app"))
import ranks  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--perfit", required=True, help="the perfit executable under test")
    parser.addoption("--work", required=True, help="work directory (emptied first)")
    parser.addoption("--mpiexec", default="mpiexec", help="mpiexec of the MPI perfit was built with")
    parser.addoption("--source", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     help="the source tree (slurm/ scripts, scripts/, data/)")
    parser.addoption("--reverse", action="store_true",
                     help="run the tests of each file in reverse order (no test may rely on an earlier one)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--reverse"):
        items.reverse()


def pytest_configure(config):
    ranks.configure(config.getoption("--perfit"), config.getoption("--work"),
                    config.getoption("--mpiexec"), config.getoption("--source"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Fails the test with what it collected in `failures` (the first test also carries what
    the module's set-up collected); the list is emptied for the next test."""
    failures = getattr(item.module, "failures", None)
    outcome = yield
    if not failures:
        return
    found = "\n\n".join(map(str, failures))
    del failures[:]
    if outcome.excinfo is None:
        raise AssertionError(f"check(s) failed:\n\n{found}")
    print(f"checks that failed before the error:\n\n{found}")  # shown with the error's report
