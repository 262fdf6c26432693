#!/usr/bin/env python3
"""The package installed two ways: `cmake --install` into a prefix (the installed `perfit report`
finds it there), and `pip install --no-build-isolation` into a venv made with
`python3 -m venv --system-site-packages`, from Debian's packages alone (--no-index). The pip
build reuses this build tree (PERFIT_BUILD_DIR), so only the packaging is new work.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import os
import shutil
import subprocess
import sys

import ranks

exe, work, _ = ranks.arguments()
source = ranks.SOURCE
build = os.path.dirname(os.path.abspath(exe))
FIT = ("import numpy as np, pandas as pd, perfit; "
       "df = pd.DataFrame({'gpus': [1, 2, 4, 8, 16] * 2}); df['time'] = 3 + 100 / df.gpus; "
       "f = perfit.fit(df, model='amdahl', factors={'p': 'gpus'}); "
       "print(perfit.__file__); print(round(f.values['t1'], 3)); f.save('r.h5', force=True)")


def run(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd or work, timeout=600)
    assert r.returncode == 0, f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-1500:]}\n{r.stderr[-2500:]}"
    return r


def test_cmake_install_into_a_prefix():
    prefix = os.path.join(work, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix])
    site = os.path.join(prefix, "lib", "python3", "dist-packages")
    env = dict(os.environ, PYTHONPATH=site)
    r = run([sys.executable, "-c", FIT], env=env)
    assert r.stdout.splitlines()[0].startswith(site) and r.stdout.splitlines()[1] == "103.0", r.stdout
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # found from bin/perfit, not the path
    r = run([os.path.join(prefix, "bin", "perfit"), "report", "r.h5", "--out", "installed.html"], env=clean)
    assert os.path.getsize(os.path.join(work, "installed.html")) > 10000


def test_pip_install_into_a_venv_from_debian_packages():
    tree = os.path.join(work, "src")  # the files pip packages, so that the source tree stays untouched
    os.makedirs(os.path.join(tree, "docs"))
    for f in ("pyproject.toml", "setup.py"):
        shutil.copy(os.path.join(source, f), tree)
    shutil.copy(os.path.join(source, "docs", "python.md"), os.path.join(tree, "docs"))
    shutil.copytree(os.path.join(source, "python"), os.path.join(tree, "python"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    venv = os.path.join(work, "venv")
    run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PERFIT_BUILD_DIR"] = build
    run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", tree], env=env)
    r = run([os.path.join(venv, "bin", "python"), "-c", FIT], env=env, cwd=os.path.join(work))
    assert r.stdout.splitlines()[0].startswith(venv) and r.stdout.splitlines()[1] == "103.0", r.stdout
