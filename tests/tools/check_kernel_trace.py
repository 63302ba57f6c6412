#!/usr/bin/env python3
"""bench/gpu/kernel_trace.py on hand-made traces whose numbers are known: one file (busy
share, calls, totals) and two files of ranks sharing a GPU (the busy union, the idle time,
the time by kernels running at once, the window of --start-at and --end-at).

    python3 check_kernel_trace.py REPO WORKDIR
"""
import os
import re
import subprocess
import sys

HEAD = "start_ns,end_ns,graph,node,grid,block,name\n"


def write(path, rows):
    with open(path, "w") as f:
        f.write(HEAD)
        for s, e, name in rows:
            f.write(f"{s},{e},0,0,1,1,{name}\n")


def run(repo, *args):
    r = subprocess.run([sys.executable, os.path.join(repo, "bench/gpu/kernel_trace.py"), *args],
                       capture_output=True, text=True, timeout=60)
    if r.returncode:
        sys.exit(f"FAIL: kernel_trace.py {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def expect(out, pattern, what):
    if not re.search(pattern, out):
        sys.exit(f"FAIL: {what}: no match for {pattern!r} in\n{out}")
    print(f"ok: {what}")


def main():
    repo, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ms = 1000 * 1000  # ns
    a, b = os.path.join(work, "a.csv"), os.path.join(work, "b.csv")
    # rank a: k_one [0, 10) and [20, 30) ms; rank b: k_two [5, 15) and [40, 50) ms, then a
    # late k_end [100, 110) that --end-at k_two leaves out
    write(a, [(0, 10 * ms, "k_one(int)"), (20 * ms, 30 * ms, "k_one(int)")])
    write(b, [(5 * ms, 15 * ms, "k_two()"), (40 * ms, 50 * ms, "k_two()"),
              (100 * ms, 110 * ms, "k_end()")])
    one = run(repo, a)
    # span [0, 30) ms, busy 20 ms; k_one: 2 calls, median 10,000 us, total 20 ms
    expect(one, r"2 kernels, span 30\.00 ms, busy 20\.00 ms \(66\.7 %\)", "one file: busy share")
    expect(one, r"k_one\s+host\s+2\s+10000\.00\s+20\.00", "one file: calls, median and total")
    two = run(repo, a, b, "--end-at", "k_two")
    # span [0, 50) ms; busy union [0, 15) + [20, 30) + [40, 50) = 35 ms; idle 15 ms; two
    # kernels at once in [5, 10): 5 ms; one at once 30 ms; kernel time summed 40 ms
    expect(two, r"4 kernels, span 50\.00 ms, busy 35\.00 ms \(70\.0 %\)", "two files: busy union")
    expect(two, r"2 files: the GPU idle 15\.00 ms \(30\.0 %\); kernel time summed over the files "
                r"40\.00 ms; time by kernels running at once: 0: 15\.0 ms, 1: 30\.0 ms, 2: 5\.0 ms",
           "two files: idle and overlap")
    win = run(repo, a, b, "--start-at", "k_one:1", "--end-at", "k_two")
    # from k_one's second launch (20 ms) to k_two's last end (50 ms): [20, 30) and [40, 50)
    expect(win, r"2 kernels, span 30\.00 ms, busy 20\.00 ms \(66\.7 %\)", "window of --start-at")
    r = subprocess.run([sys.executable, os.path.join(repo, "bench/gpu/kernel_trace.py"), a,
                        "--start-at", "k_one:5"], capture_output=True, text=True, timeout=60)
    expect(f"{r.returncode} {r.stderr}", r"^1 .*2 launches of k_one", "--start-at past the end")
    print("PASS")


if __name__ == "__main__":
    main()
