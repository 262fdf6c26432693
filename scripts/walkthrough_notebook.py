#!/usr/bin/env python3
"""Writes docs/examples/walkthrough.ipynb from docs/python.md's "A walk-through" section: its
prose as Markdown cells, its ```python blocks as code cells, in order, so that the notebook and
the page say the same (the test suite regenerates it and fails when the committed one differs,
then executes it with nbconvert). Figures show inline when the notebook runs in Jupyter.

usage: walkthrough_notebook.py [--check]   (--check: exit 1 when the committed notebook is stale)
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PAGE = os.path.join(SOURCE, "docs", "python.md")
NOTEBOOK = os.path.join(SOURCE, "docs", "examples", "walkthrough.ipynb")

INTRO = ("# perfit from Python: the walk-through\n\n"
         "Made from [docs/python.md](../python.md)'s walk-through by `scripts/walkthrough_notebook.py`; "
         "the test suite executes it (`python_walkthrough`). Run it with Debian's `python3` kernel and "
         "perfit's package on the path (`PYTHONPATH=build/python jupyter notebook`).")


def section(text):
    start = text.index("## A walk-through")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def cells(text):
    """[(kind, source)] of the section: prose between blocks as markdown, blocks as code."""
    out = [("markdown", INTRO)]
    pos = 0
    body = section(text)
    body = body[body.index("\n") + 1:]  # the section's heading is the notebook's title
    for m in re.finditer(r"```python\n(.*?)```", body, re.S):
        prose = body[pos:m.start()].strip()
        if prose:
            out.append(("markdown", prose))
        out.append(("code", m.group(1).rstrip("\n")))
        pos = m.end()
    rest = body[pos:].strip()
    if rest:
        out.append(("markdown", rest))
    return out


def notebook(text):
    def lines(source):
        parts = source.split("\n")
        return [p + "\n" for p in parts[:-1]] + [parts[-1]]

    nb_cells = []
    for kind, source in cells(text):
        cell = {"cell_type": kind, "metadata": {}, "source": lines(source)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        nb_cells.append(cell)
    return {"cells": nb_cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def text_of(nb):
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed notebook differs")
    a = ap.parse_args()
    with open(PAGE, encoding="utf-8") as f:
        want = text_of(notebook(f.read()))
    if a.check:
        have = open(NOTEBOOK, encoding="utf-8").read() if os.path.exists(NOTEBOOK) else ""
        if have != want:
            print(f"walkthrough_notebook.py: {NOTEBOOK} is stale against {PAGE}; run scripts/walkthrough_notebook.py",
                  file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(NOTEBOOK), exist_ok=True)
    with open(NOTEBOOK, "w", encoding="utf-8") as f:
        f.write(want)
    print(f"wrote {NOTEBOOK}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
