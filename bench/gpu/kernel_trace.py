#!/usr/bin/env python3
"""Summary of a kernel_trace CSV (bench/gpu/kernel_trace.c): per kernel the launches, the
median and total GPU time, split into the launches from CUDA graphs and from the host; the
median and mean gap before each kernel inside graphs (from the end of the kernel before it
in the same graph launch: the mean shows a gap that only every few launches take, such as
the relaunch of a WHILE node's body); and the busy share of the span. Standard library only.

    python3 bench/gpu/kernel_trace.py trace.csv [--skip-ms 0]
"""
import argparse
import csv
import signal
import statistics
import sys
from collections import defaultdict


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--skip-ms", type=float, default=0.0,
                    help="leave out the records of the first SKIP ms (setup, tuning)")
    ap.add_argument("--width", type=int, default=44, help="kernel name column width")
    a = ap.parse_args()
    recs = []
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            recs.append((int(r["start_ns"]), int(r["end_ns"]), int(r["graph"]), r["name"]))
    if not recs:
        sys.exit("kernel_trace.py: no kernel records in " + a.csv)
    recs.sort()
    t0 = recs[0][0] + a.skip_ms * 1e6
    recs = [r for r in recs if r[0] >= t0]
    dur = defaultdict(list)
    gap = defaultdict(list)
    prev = None
    for s, e, g, n in recs:
        short = n.split("(")[0][: a.width]
        key = (short, "graph" if g else "host")
        dur[key].append((e - s) / 1e3)
        if g and prev is not None and prev[2] == g and 0 <= s - prev[1] < 200e3:
            gap[key].append((s - prev[1]) / 1e3)
        prev = (s, e, g)
    span = (recs[-1][1] - recs[0][0]) / 1e3
    busy = sum(e - s for s, e, _, _ in recs) / 1e3
    print(f"{len(recs)} kernels, span {span / 1e3:.2f} ms, busy {busy / 1e3:.2f} ms "
          f"({100 * busy / span:.1f} %)")
    print(f"{'kernel':<{a.width}} {'from':<5} {'calls':>7} {'median us':>10} {'total ms':>9} "
          f"{'gap before: median':>19} {'mean us':>8}")
    for key, d in sorted(dur.items(), key=lambda kv: -sum(kv[1])):
        gm = f"{statistics.median(gap[key]):.2f}" if gap[key] else "-"
        ga = f"{statistics.mean(gap[key]):.2f}" if gap[key] else "-"
        print(f"{key[0]:<{a.width}} {key[1]:<5} {len(d):>7} {statistics.median(d):>10.2f} "
              f"{sum(d) / 1e3:>9.2f} {gm:>19} {ga:>8}")


if __name__ == "__main__":
    main()
