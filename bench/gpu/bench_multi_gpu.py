#!/usr/bin/env python3
"""Weak scaling of 3D Sedov Q2-Q1 across the GPUs of one node, one rank per GPU (issue 8).

usage: bench/gpu/bench_multi_gpu.py BLAST OUTDIR [--gpus 1 2] [--elements 50] [--rp 1]
       [--steps 10] [--threads 8] [--repeat 3]

Each GPU gets the same block of zones: a box of (G*E) x E x E elements of size G x 1 x 1
(cubic zones), refined rp times in parallel: E = 50, rp = 1 gives 10^6 zones per GPU.
Time per step = the summary's "steps_max" (slowest rank, time steps only) / steps; the
median over `repeat` runs. Efficiency = t(1 GPU) / t(G GPUs). Prints a table and writes
OUTDIR/multi_gpu.csv.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "sedov3d_box.ini")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("blast")
    ap.add_argument("out")
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--elements", type=int, default=50)
    ap.add_argument("--rp", type=int, default=1)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    e = a.elements
    rows = []
    base_t = None
    print("gpus  zones       ms/step(median)  runs(ms)              efficiency", flush=True)
    for g in a.gpus:
        times = []
        for r in range(a.repeat):
            d = os.path.join(a.out, "g%d_r%d" % (g, r))
            cmd = ["mpirun", "-n", str(g), "--oversubscribe", "--bind-to", "none", a.blast, DECK,
                   "mesh.elements=%d %d %d" % (g * e, e, e), "mesh.size=%d 1 1" % g,
                   "mesh.refine_parallel=%d" % a.rp, "time.max_steps=%d" % (a.steps - 1),
                   "output.print_every=100000", "output.dir=" + d, "output.overwrite=true",
                   "checkpoint.at_end=false", "gpu.backend=cuda", "gpu.autotune=cached"]
            env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OMPI_ALLOW_RUN_AS_ROOT="1",
                       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                sys.exit("FAIL (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout[-2000:], p.stderr[-2000:]))
            with open(os.path.join(d, "summary.json")) as f:
                s = json.load(f)
            times.append(1e3 * s["timing"]["steps_max"] / s["steps"])
            zones = s["zones"]
        t = statistics.median(times)
        base_t = base_t or t
        eff = base_t / t
        rows.append((g, zones, t, eff))
        print("%4d  %-10d  %15.2f  %-20s  %9.1f%%" % (g, zones, t, " ".join("%.1f" % x for x in times), 100 * eff),
              flush=True)
    with open(os.path.join(a.out, "multi_gpu.csv"), "w") as f:
        f.write("gpus,zones,ms_per_step,efficiency\n")
        for g, z, t, eff in rows:
            f.write("%d,%d,%.4f,%.4f\n" % (g, z, t, eff))


if __name__ == "__main__":
    main()
