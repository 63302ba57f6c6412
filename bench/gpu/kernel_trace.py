#!/usr/bin/env python3
"""Summary of kernel_trace CSVs (bench/gpu/kernel_trace.c): per kernel the launches, the
median and total GPU time, split into the launches from CUDA graphs and from the host; the
median and mean gap before each kernel inside graphs (from the end of the kernel before it
in the same graph launch: the mean shows a gap that only every few launches take, such as
the relaunch of a WHILE node's body); and the busy share of the span. Standard library only.

Several files are the ranks of one run sharing a GPU (one CSV per rank: the records carry
the GPU's clock, so they line up): the GPU is busy while any rank's kernel or copy runs,
and the summary adds the time spent with 0, 1, 2, ... of them running at once. Idle time
is what a loop without host round trips could win back; time with one kernel running is
the ranks' kernels taking turns, not overlapping.

    python3 bench/gpu/kernel_trace.py trace.csv [more.csv ...] [--skip-ms 0]
        [--start-at NAME:N] [--end-at NAME]

    # the ranks of an MPI run, a file each (Open MPI):
    mpirun -n 8 -x CUDA_INJECTION64_PATH sh -c \\
        'KERNEL_TRACE_OUT=tr_$OMPI_COMM_WORLD_RANK.csv exec blast_gpu deck.ini'
    python3 bench/gpu/kernel_trace.py tr_*.csv --start-at k_pa_qdata3:40 --end-at advance
"""
import argparse
import csv
import signal
import statistics
import sys
from collections import defaultdict


def load(path):
    recs = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            recs.append((int(r["start_ns"]), int(r["end_ns"]), int(r["graph"]), r["name"]))
    return recs


def window(recs, a):
    """The records inside the window of --skip-ms, --start-at and --end-at."""
    t0 = recs[0][0] + a.skip_ms * 1e6
    if a.start_at:
        name, _, n = a.start_at.rpartition(":")
        if not name or not n.isdigit():
            sys.exit("kernel_trace.py: --start-at takes NAME:N, e.g. k_pa_qdata3:40")
        starts = [s for s, _, _, k in recs if name in k]
        if len(starts) <= int(n):
            sys.exit(f"kernel_trace.py: --start-at {a.start_at}: {len(starts)} launches of {name}")
        t0 = max(t0, starts[int(n)])
    t1 = recs[-1][1]
    if a.end_at:
        ends = [e for _, e, _, k in recs if a.end_at in k]
        if not ends:
            sys.exit(f"kernel_trace.py: --end-at {a.end_at}: no such kernel")
        t1 = max(ends)
    return [r for r in recs if r[0] >= t0 and r[1] <= t1]


def concurrency(recs):
    """Nanoseconds with k records running at once, for each k (0: the GPU idle)."""
    ev = sorted([(s, 1) for s, _, _, _ in recs] + [(e, -1) for _, e, _, _ in recs])
    hist = defaultdict(int)
    running, last = 0, ev[0][0]
    for t, d in ev:
        hist[running] += t - last
        last, running = t, running + d
    return hist


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="one file, or one per rank sharing the GPU")
    ap.add_argument("--skip-ms", type=float, default=0.0,
                    help="leave out the records of the first SKIP ms (setup, tuning)")
    ap.add_argument("--start-at", default="",
                    help="NAME:N: start at launch N (from 0, all files together) of the first "
                         "kernel whose name contains NAME")
    ap.add_argument("--end-at", default="",
                    help="NAME: end with the last launch of a kernel whose name contains NAME")
    ap.add_argument("--width", type=int, default=44, help="kernel name column width")
    a = ap.parse_args()
    recs = []
    for path in a.csv:
        recs += load(path)
    if not recs:
        sys.exit("kernel_trace.py: no kernel records in " + ", ".join(a.csv))
    recs.sort()
    recs = window(recs, a)
    if not recs:
        sys.exit("kernel_trace.py: no records inside the window")
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
    span = (max(e for _, e, _, _ in recs) - recs[0][0]) / 1e3
    total = sum(e - s for s, e, _, _ in recs) / 1e3
    hist = concurrency(recs)
    busy = (sum(hist.values()) - hist.get(0, 0)) / 1e3
    print(f"{len(recs)} kernels, span {span / 1e3:.2f} ms, busy {busy / 1e3:.2f} ms "
          f"({100 * busy / span:.1f} %)")
    if len(a.csv) > 1:
        shares = ", ".join(f"{k}: {v / 1e6:.1f} ms" for k, v in sorted(hist.items()))
        print(f"{len(a.csv)} files: the GPU idle {hist.get(0, 0) / 1e6:.2f} ms "
              f"({100 * hist.get(0, 0) / 1e3 / span:.1f} %); kernel time summed over the "
              f"files {total / 1e3:.2f} ms; time by kernels running at once: {shares}")
    print(f"{'kernel':<{a.width}} {'from':<5} {'calls':>7} {'median us':>10} {'total ms':>9} "
          f"{'gap before: median':>19} {'mean us':>8}")
    for key, d in sorted(dur.items(), key=lambda kv: -sum(kv[1])):
        gm = f"{statistics.median(gap[key]):.2f}" if gap[key] else "-"
        ga = f"{statistics.mean(gap[key]):.2f}" if gap[key] else "-"
        print(f"{key[0]:<{a.width}} {key[1]:<5} {len(d):>7} {statistics.median(d):>10.2f} "
              f"{sum(d) / 1e3:>9.2f} {gm:>19} {ga:>8}")


if __name__ == "__main__":
    main()
