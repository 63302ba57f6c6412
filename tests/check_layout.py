#!/usr/bin/env python3
"""The source layout (docs/architecture.md, "Layers"): the folders' #include graph has no
cycle, and every source file is at most 800 lines (a file past that is a sign to split it).

    python3 tests/check_layout.py SOURCE_ROOT

A folder is base, fem, hydro, partition, io, app, backends/cpu or backends/cuda; an include
is resolved to the folder that holds the header. Exit 1 naming the cycle or the long files.
"""
import os
import re
import sys

FOLDERS = ["base", "fem", "hydro", "partition", "io", "app", "backends/cpu", "backends/cuda"]
SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp")
MAX_LINES = 800


def folder_of(path):
    for f in sorted(FOLDERS, key=len, reverse=True):
        if path == f or path.startswith(f + "/"):
            return f
    return None


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    root = sys.argv[1]
    headers, files = {}, []
    for f in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, f)):
            for n in names:
                if n.endswith(SOURCES):
                    rel = os.path.relpath(os.path.join(dirpath, n), root)
                    files.append(rel)
                    headers.setdefault(n, rel)
                    headers.setdefault(os.path.relpath(rel, f), rel)  # e.g. problems/problems.h
    edges, long_files = {}, []
    for rel in sorted(files):
        with open(os.path.join(root, rel), errors="replace") as fh:
            text = fh.read()
        nlines = text.count("\n")
        if nlines > MAX_LINES:
            long_files.append("%s: %d lines" % (rel, nlines))
        src = folder_of(rel)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            target = headers.get(inc) or headers.get(os.path.basename(inc))
            dst = folder_of(target) if target else None
            if dst and dst != src:
                edges.setdefault(src, {}).setdefault(dst, "%s includes %s" % (rel, inc))
    # a cycle by depth-first search
    state, cycle = {}, []

    def visit(u, stack):
        state[u] = 1
        for v in edges.get(u, {}):
            if state.get(v) == 1:
                cycle.extend(stack[stack.index(v):] + [u, v] if v in stack else [u, v])
                return True
            if not state.get(v) and visit(v, stack + [u]):
                return True
        state[u] = 2
        return False

    for f in FOLDERS:
        if not state.get(f) and visit(f, []):
            break
    bad = 0
    if cycle:
        bad = 1
        path = [c for i, c in enumerate(cycle) if i == 0 or c != cycle[i - 1]]
        print("FAIL: the folders include each other in a cycle: " + " -> ".join(path))
        for a, b in zip(path, path[1:]):
            print("  %s -> %s: %s" % (a, b, edges[a][b]))
    if long_files:
        bad = 1
        print("FAIL: files over %d lines:\n  %s" % (MAX_LINES, "\n  ".join(long_files)))
    for a in FOLDERS:
        print("%-14s -> %s" % (a, ", ".join(sorted(edges.get(a, {}))) or "-"))
    print("%d files, %s" % (len(files), "FAIL" if bad else "PASS"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
