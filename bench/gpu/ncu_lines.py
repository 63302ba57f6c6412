#!/usr/bin/env python3
"""Stall samples and executed instructions per source line of an Nsight Compute report.

On the GPU node (the build has -lineinfo; the report was taken with --import-source yes):
  ncu --import REPORT.ncu-rep --page source --csv --print-source cuda,sass > src.csv
  python3 bench/gpu/ncu_lines.py src.csv [N]
prints the share of warp-stall samples and of executed instructions per file, then the N
source lines (default 40) with the most samples, over every kernel in the report.
"""
import collections
import csv
import sys


def main():
    rows = list(csv.reader(open(sys.argv[1])))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    f = None
    samples, instr, lines = collections.Counter(), collections.Counter(), []
    for r in rows:
        if r and r[0] == "File Path":
            f = r[1].split("/")[-1]
            continue
        if len(r) > 8 and r[0] and r[0][0].isdigit():  # a source line with its totals
            s = int(r[4]) if r[4] not in ("-", "") else 0
            n = int(r[7]) if r[7] not in ("-", "") else 0
            samples[f] += s
            instr[f] += n
            lines.append((s, n, f, r[0], r[1][:90]))
    ts, ti = sum(samples.values()) or 1, sum(instr.values()) or 1
    print("samples by file:", {k: "%.1f%%" % (100.0 * v / ts) for k, v in samples.items()},
          "instructions:", {k: "%.1f%%" % (100.0 * v / ti) for k, v in instr.items()})
    lines.sort(reverse=True)
    for s, n, f, ln, src in lines[:top]:
        print("%5.1f%% %5.1f%%  %s:%s  %s" % (100.0 * s / ts, 100.0 * n / ti, f, ln, src))


if __name__ == "__main__":
    main()
