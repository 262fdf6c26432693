#!/usr/bin/env python3
"""docs/design.md's layer table against the code: every `#include "perfit/<layer>/..."` of a
file in src/<layer> or include/perfit/<layer> must be allowed by the table, every layer the table
lists must really be included (the picture says what the code does, no more), the layers form
no cycle, and mpi.h / hdf5.h appear only in the layers marked for them (hdf5.h never in a
public header under include/). A quoted include
without the perfit/ prefix must name a file of the including file's own folder: a bare include
that reaches another folder (through an include path) is an edge the table cannot see.

usage: layers_test.py SOURCE_DIR
"""
import collections
import glob
import os
import re
import sys

source = sys.argv[1]
failures = []

table = {}
with open(os.path.join(source, "docs", "design.md")) as f:
    text = f.read()
section = text[text.index("## Layers"):]
for line in section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 4 or cells[0] in ("layer", "---") or not line.startswith("|"):
        continue
    parse = lambda c: set() if c == "-" else {x.strip() for x in c.split(",")}
    table[cells[0]] = (parse(cells[2]), parse(cells[3]))
if not table:
    sys.exit("FAILED: no layer table found under '## Layers' in docs/design.md")

used = collections.defaultdict(set)
system = collections.defaultdict(set)
where = {}
files = glob.glob(os.path.join(source, "src", "**", "*"), recursive=True) + \
    glob.glob(os.path.join(source, "include", "perfit", "**", "*"), recursive=True)
generated = {"version.hpp"}  # written by CMake into the build tree, part of core
for path in files:
    if not os.path.isfile(path) or not re.search(r"\.(hpp|cpp|h|in)$", path):
        continue
    rel = os.path.relpath(path, source).split(os.sep)
    layer = rel[2] if rel[0] == "include" else rel[1]
    if layer not in table:
        failures.append(f"{'/'.join(rel)}: layer '{layer}' is not in docs/design.md's table")
        continue
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'\s*#\s*include\s*[<"]([^">]+)[">]', line)
            if not m:
                continue
            inc = m.group(1)
            quoted = line.lstrip().lstrip("#").lstrip()[len("include"):].lstrip().startswith('"')
            if quoted and not inc.startswith("perfit/") and inc not in generated and \
                    not os.path.isfile(os.path.join(os.path.dirname(path), inc)):
                failures.append(f"{'/'.join(rel)}:{n}: #include \"{inc}\" is not a file of its own folder; "
                                f"include another layer's header as \"perfit/<layer>/...\"")
            if inc.startswith("perfit/"):
                dep = inc.split("/")[1]
                if dep != layer:
                    used[layer].add(dep)
                    where.setdefault((layer, dep), f"{'/'.join(rel)}:{n}")
            elif inc == "hdf5.h" and rel[0] == "include":
                failures.append(f"{'/'.join(rel)}:{n}: a public header includes hdf5.h; hold an io::H5Id "
                                f"(perfit/io/h5_id.hpp) and keep hdf5.h in io's .cpp files")
            elif inc in ("mpi.h", "hdf5.h"):
                system[layer].add(inc)
                where.setdefault((layer, inc), f"{'/'.join(rel)}:{n}")

for layer, (allowed, sys_allowed) in sorted(table.items()):
    for dep in sorted(used[layer] - allowed):
        failures.append(f"{where[(layer, dep)]}: layer '{layer}' includes '{dep}', which docs/design.md "
                        f"does not allow (allowed: {', '.join(sorted(allowed)) or 'none'})")
    for dep in sorted(allowed - used[layer]):
        failures.append(f"docs/design.md: layer '{layer}' is said to include '{dep}', but no file of it does")
    for h in sorted(system[layer] - sys_allowed):
        failures.append(f"{where[(layer, h)]}: layer '{layer}' includes {h}, which docs/design.md does not allow")
    for h in sorted(sys_allowed - system[layer]):
        failures.append(f"docs/design.md: layer '{layer}' is said to include {h}, but no file of it does")

# No cycle: a depth-first walk of the table's graph.
state = {}
def visit(layer, path):
    if state.get(layer) == "open":
        failures.append("docs/design.md: the layers form a cycle: " + " -> ".join(path + [layer]))
        return
    if state.get(layer) == "done":
        return
    state[layer] = "open"
    for dep in sorted(table.get(layer, (set(), set()))[0]):
        visit(dep, path + [layer])
    state[layer] = "done"
for layer in table:
    visit(layer, [])

for f in failures:
    print("FAIL:", f)
print(f"{len(table)} layers, {sum(len(v) for v in used.values())} layer dependencies checked; "
      f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
