#!/usr/bin/env python3
"""docs/python.md's walk-through, run as written: its ```python blocks under "## A
walk-through", in order, as one script in an empty directory (so the page cannot go stale).

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import os
import re
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
