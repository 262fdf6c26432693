#!/usr/bin/env python3
"""The C++ of the tree (src/, include/, tests/, bench/) as .clang-format says: clang-format
--dry-run --Werror over every .cpp/.hpp/.h, failing with the files and the command that formats
them. clang-format 14 is installed by `scripts/setup.sh --test`.

usage: format_test.py SOURCE_DIR [CLANG_FORMAT]
"""
import os
import shutil
import subprocess
import sys

source = sys.argv[1]
tool = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("clang-format") or shutil.which("clang-format-14"))
if not tool:
    sys.exit("FAILED: clang-format not found; install it with `bash scripts/setup.sh --test` "
             "(Debian's clang-format package)")

files = []
for top in ("src", "include", "tests", "bench"):
    for folder, _, names in os.walk(os.path.join(source, top)):
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".cpp", ".hpp", ".h"))]
if len(files) < 100:
    sys.exit(f"FAILED: found only {len(files)} C++ files under {source}; is SOURCE_DIR the tree?")

r = subprocess.run([tool, "--dry-run", "--Werror", f"--style=file:{os.path.join(source, '.clang-format')}",
                    *files], capture_output=True, text=True)
if r.returncode != 0:
    bad = sorted({line.split(":")[0] for line in r.stderr.splitlines() if ": error:" in line})
    rel = [os.path.relpath(b, source) for b in bad]
    print("\n".join(r.stderr.splitlines()[:40]))
    sys.exit(f"FAILED: {len(rel)} file(s) not formatted as .clang-format says: {' '.join(rel[:20])}"
             f"{' ...' if len(rel) > 20 else ''}\nformat them with: clang-format -i {' '.join(rel)}")
print(f"{len(files)} C++ files formatted as .clang-format says ({tool})")
