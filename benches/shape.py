#!/usr/bin/env python3
"""The code's shape, measured: file sizes, function lengths, and
what the core imports from the front ends.

    python3 benches/shape.py [SRC_DIR]        default: src

Prints files over 400 and 600 lines, the longest functions (a function runs
from its `fn` line to the line where its braces close; comments and blank
lines count, as a reader sees them), every `crate::cli` / `crate::tui`
import outside src/cli and src/tui, every import of the workbench's views
from its state, update or effects (those layers never draw), and the test
targets beside SRC_DIR.
Python's standard library only.
"""

import os
import re
import sys

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")
FRONT = re.compile(r"\b(crate|jury)::(cli|tui)\b|\bsuper::super::(cli|tui)\b")
VIEWS = re.compile(r"\b(tui|super)::views\b")
# The workbench's layers below drawing (src/tui/...).
BELOW_VIEWS = tuple(os.path.join("tui", d) + os.sep for d in ("app", "update", "effects"))


def strip_strings(line):
    """Blanks string and char literals and line comments, so braces inside
    them do not count (good enough for rustfmt-formatted code)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


def functions(lines):
    """(name, first line, length) of each function with a body."""
    out = []
    i = 0
    while i < len(lines):
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            code = strip_strings(lines[j])
            if not opened and ";" in code and "{" not in code:
                break  # a declaration without a body (trait method)
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                out.append((m.group(6), i + 1, j - i + 1))
                break
            j += 1
        i += 1
    return out


def test_targets(tests):
    """The integration test targets cargo finds in `tests`: each `*.rs` file
    and each folder with a `main.rs`. Every one links the whole library."""
    if not os.path.isdir(tests):
        return []
    out = []
    for n in sorted(os.listdir(tests)):
        p = os.path.join(tests, n)
        if n.endswith(".rs") and os.path.isfile(p):
            out.append(n)
        elif os.path.isfile(os.path.join(p, "main.rs")):
            out.append(n + "/")
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    files, fns, front, views = [], [], [], []
    for d, _, names in os.walk(root):
        for n in names:
            if not n.endswith(".rs"):
                continue
            p = os.path.join(d, n)
            with open(p, encoding="utf-8") as f:
                lines = f.read().split("\n")
            rel = os.path.relpath(p, root)
            files.append((len(lines), rel))
            fns.extend((length, f"{rel}:{line} {name}") for name, line, length in functions(lines))
            # The front ends and the binary that starts them.
            if not rel.startswith(("cli", "tui", "main.rs")):
                front.extend(f"{rel}:{k + 1}: {l.strip()}" for k, l in enumerate(lines) if FRONT.search(l))
            if rel.startswith(BELOW_VIEWS):
                views.extend(f"{rel}:{k + 1}: {l.strip()}" for k, l in enumerate(lines) if VIEWS.search(l))
    files.sort(reverse=True)
    fns.sort(reverse=True)
    total = sum(n for n, _ in files)
    print(f"{len(files)} files, {total} lines, {len(fns)} functions")
    print(f"files over 600 lines: {sum(n > 600 for n, _ in files)}; over 400: {sum(n > 400 for n, _ in files)}")
    for n, p in files:
        if n > 400:
            print(f"  {n:5} {p}")
    print(f"functions over 120 lines: {sum(n > 120 for n, _ in fns)}; over 80: {sum(n > 80 for n, _ in fns)}")
    for n, p in fns[:12]:
        print(f"  {n:5} {p}")
    print(f"front-end imports in the core: {len(front)}")
    for l in front:
        print(f"  {l}")
    print(f"workbench state/update/effects imports from views: {len(views)}")
    for l in views:
        print(f"  {l}")
    targets = test_targets(os.path.join(os.path.dirname(os.path.abspath(root)), "tests"))
    print(f"test targets: {len(targets)}")
    print(f"  {' '.join(targets)}")


if __name__ == "__main__":
    main()
