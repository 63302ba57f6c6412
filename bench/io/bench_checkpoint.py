#!/usr/bin/env python3
"""Checkpoint write and read (restart) time and bandwidth of blast_gpu.

usage: bench/io/bench_checkpoint.py BLAST OUTDIR [--ranks 1 8] [--elements 50] [--rp 1]
       [--writes 3] [--reads 2] [--backend cpu] [--threads-total 16]

3D Sedov, Q2-Q1, a box of E^3 elements refined rp times in parallel (E = 50, rp = 1:
10^6 zones, 8.1 M H1 dofs per component). For each rank count: one run that writes a
checkpoint after each of its `writes` steps (checkpoint.steps=1, forward Euler to keep the
steps cheap), then `reads` restarts from the newest one. The times are blast_gpu's own:
'checkpoint ... (X MB in Y s, Z MB/s)' and 'restarted from ... (X MB read and checked in Y
s ...)', measured on rank 0 around the collective calls (write: gather to global order,
HDF5 collective write, close, rename, prune; read: open, checks, collective point reads,
checksums). Prints one line per rank count with the medians; raw lines to OUTDIR/*.log.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "..", "gpu", "sedov3d_box.ini")


def mpirun(blast, n, threads, args, log):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "-n", str(n), "--oversubscribe", "--bind-to", "none", blast, DECK] + args
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    if p.returncode != 0:
        sys.exit("FAIL (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("blast")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--elements", type=int, default=50)
    ap.add_argument("--rp", type=int, default=1)
    ap.add_argument("--writes", type=int, default=3)
    ap.add_argument("--reads", type=int, default=2)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads-total", type=int, default=16)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    e = a.elements
    base = ["mesh.elements=%d %d %d" % (e, e, e), "mesh.refine_parallel=%d" % a.rp,
            "time.ode_solver=euler", "output.print_every=1", "output.overwrite=true",
            "gpu.backend=" + a.backend]
    wre = re.compile(r"checkpoint \(\w+[^)]*\) at step (\d+).*\(([\d.]+) MB in ([\d.]+) s")
    rre = re.compile(r"restarted from .*\(([\d.]+) MB read and checked in ([\d.]+) s")
    zre = re.compile(r"zones\s+(\d+)|(\d+) zones")
    print("ranks  zones      file_MB  write_s(median of %d)  write_MB/s  read_s(median of %d)  read_MB/s"
          % (a.writes, a.reads))
    for n in a.ranks:
        threads = max(1, a.threads_total // n)
        d = os.path.join(a.out, "np%d" % n)
        out = mpirun(a.blast, n, threads,
                     base + ["output.dir=" + d, "checkpoint.steps=1", "checkpoint.keep=1",
                             "time.max_steps=%d" % (a.writes - 1)],
                     os.path.join(a.out, "write_np%d.log" % n))
        writes = [(float(m.group(2)), float(m.group(3))) for m in wre.finditer(out)]
        chk = os.path.join(d, "checkpoints", "chk_%08d.h5" % a.writes)
        reads = []
        for r in range(a.reads):
            o = mpirun(a.blast, n, threads,
                       base + ["output.dir=" + d + "_r", "checkpoint.at_end=false",
                               "time.max_steps=%d" % a.writes, "--restart", chk],
                       os.path.join(a.out, "read_np%d_%d.log" % (n, r)))
            m = rre.search(o)
            reads.append((float(m.group(1)), float(m.group(2))))
        zm = zre.search(out)
        zones = next(g for g in zm.groups() if g) if zm else "?"
        mb = writes[-1][0]
        ws = statistics.median(w[1] for w in writes)
        rs = statistics.median(r[1] for r in reads)
        print("%5d  %-9s  %7.1f  %20.3f  %10.0f  %19.3f  %9.0f" % (n, zones, mb, ws, mb / ws, rs, mb / rs),
              flush=True)


if __name__ == "__main__":
    main()
