#!/usr/bin/env python3
"""docs/python.md's walk-through, run as written: its ```python blocks under "## A
walk-through", in order, as one script in an empty directory (so the page cannot go stale);
then its notebook, docs/examples/walkthrough.ipynb: the same cells as the page (made by
scripts/walkthrough_notebook.py), executed by Debian's `jupyter nbconvert` with no error and
its figures inline.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import json
import os
import re
import shutil
import subprocess
import sys

import ranks

_, work, _ = ranks.arguments()
source = ranks.SOURCE


def walkthrough_script():
    with open(os.path.join(source, "docs", "python.md")) as f:
        text = f.read()
    section = text[text.index("## A walk-through"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 5, f"found {len(blocks)} python blocks in docs/python.md's walk-through"
    return "\n".join(blocks)


def test_the_walkthrough_runs_as_written():
    script = os.path.join(work, "walkthrough.py")
    with open(script, "w") as f:
        f.write(walkthrough_script())
    r = subprocess.run([sys.executable, script], cwd=work, capture_output=True, text=True, timeout=240,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "extrapolate" in r.stdout
    for made in ("r50.h5", "scaling.svg", "measured_vs_predicted.pdf", "residuals.png", "terms.png", "r50.html"):
        assert os.path.getsize(os.path.join(work, made)) > 1000, made


def test_the_notebook_is_the_page():
    r = subprocess.run([sys.executable, os.path.join(source, "scripts", "walkthrough_notebook.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_notebook_runs_with_its_figures_inline():
    jupyter = shutil.which("jupyter")
    assert jupyter, "jupyter is not installed: bash scripts/setup.sh --test installs jupyter-nbconvert"
    run_dir = os.path.join(work, "notebook")
    os.makedirs(run_dir, exist_ok=True)
    shutil.copy(os.path.join(source, "docs", "examples", "walkthrough.ipynb"), run_dir)
    r = subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute", "walkthrough.ipynb", "--output",
                        "executed.ipynb", "--ExecutePreprocessor.timeout=240"],
                       cwd=run_dir, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"))
    assert r.returncode == 0, r.stderr[-3000:]
    with open(os.path.join(run_dir, "executed.ipynb"), encoding="utf-8") as f:
        cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], "a cell raised"
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    assert images >= 4, f"{images} inline figures, expected the walk-through's 4"
    assert os.path.getsize(os.path.join(run_dir, "r50.html")) > 1000
