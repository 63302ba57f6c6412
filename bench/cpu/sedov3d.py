#!/usr/bin/env python3
"""CPU benchmark: 3D Sedov blast, Q2-Q1 and Q3-Q2, on generated box meshes.

A benchmark, not a test: it runs blast_gpu a fixed number of step attempts per case,
prints the machine, the time per step (median over the accepted steps from the progress
lines, and the mean from the run's own step timer) and the figures of merit of
summary.json. Python 3 standard library only. Results on the development machine are
recorded in docs/performance.md.

usage: bench/cpu/sedov3d.py [--blast build/app/blast_gpu] [--threads N] [--out DIR]
                            [--cases q2:16:40,q3:10:30] [--ranks R]
A case is ORDER:ZONES_PER_DIRECTION:ATTEMPTS (q2 = Q2-Q1, q3 = Q3-Q2).
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORDERS = {"q2": (2, 1), "q3": (3, 2)}


def machine():
    lines = []
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, universal_newlines=True).stdout
        info = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
        get = lambda k: info.get(k, "?").strip()  # noqa: E731
        lines.append("cpu: %s, %s socket(s) x %s core(s) x %s thread(s), %s CPUs online"
                     % (get("Model name"), get("Socket(s)"), get("Core(s) per socket"),
                        get("Thread(s) per core"), get("CPU(s)")))
        lines.append("caches: L1d %s, L2 %s, L3 %s" % (get("L1d cache"), get("L2 cache"),
                                                       get("L3 cache")))
    except OSError:
        lines.append("cpu: %s (lscpu not found)" % platform.processor())
    lines.append("host: %s, %s, load average %s" % (platform.node(), platform.platform(),
                                                    " ".join("%.2f" % x for x in os.getloadavg())))
    return lines


def step_times(stdout):
    """Seconds per accepted step from the progress lines (wall printed to 0.01 s); steps
    preceded by a repeated attempt and the first step are left out."""
    times, prev, repeated = [], None, False
    for line in stdout.splitlines():
        if line.startswith("Repeating step"):
            repeated = True
            continue
        m = re.match(r"step\s+(\d+), .* wall ([0-9.]+) s", line)
        if not m:
            continue
        wall = float(m.group(2))
        if prev is not None and not repeated:
            times.append(wall - prev)
        prev, repeated = wall, False
    return times


def run_case(args, case):
    order, zones, attempts = case.split(":")
    k, m = ORDERS[order]
    zones, attempts = int(zones), int(attempts)
    out = os.path.join(args.out, "%s_%d" % (order, zones))
    shutil.rmtree(out, ignore_errors=True)
    cmd = [args.blast, os.path.join(HERE, "sedov3d_box.ini"), "fem.order_kinematic=%d" % k,
           "fem.order_thermo=%d" % m, "mesh.elements=%d %d %d" % (zones, zones, zones),
           "time.max_steps=%d" % (attempts - 1), "output.print_every=1", "output.dir=" + out,
           "checkpoint.at_end=false"]
    if args.ranks > 1:
        cmd = ["mpirun", "-n", str(args.ranks)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    print("\n== Q%d-Q%d, %d^3 zones, %d step attempts" % (k, m, zones, attempts))
    print("   OMP_NUM_THREADS=%d %s" % (args.threads, " ".join(cmd)), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    if p.returncode != 0:
        print(p.stdout[-2000:] + p.stderr)
        sys.exit("blast_gpu failed with exit code %d" % p.returncode)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    times = step_times(p.stdout)
    mean = s["timing"]["steps_max"] / s["step_attempts"]
    print("   %d zones, %d H1 dofs, %d L2 dofs, %d points per zone, %d ranks x %d threads"
          % (s["zones"], s["h1_dofs"], s["l2_dofs"], s["quadrature_points_per_zone"], s["ranks"],
             s["threads"]))
    print("   steps %d (attempts %d), wall %.2f s (setup %.2f s)"
          % (s["steps"], s["step_attempts"], s["wall_seconds"], s["setup_seconds"]))
    if times:
        print("   time per step: median %.3f s over %d steps (min %.3f, max %.3f; wall of the "
              "progress lines, 0.01 s resolution)" % (statistics.median(times), len(times),
                                                       min(times), max(times)))
    print("   time per attempt: mean %.3f s (step timer %.2f s / %d attempts)"
          % (mean, s["timing"]["steps_max"], s["step_attempts"]))
    t = s["timing"]
    print("   breakdown: qdata+F_z %.2f s, force actions %.2f s, CG %.2f s (%d iterations)"
          % (t["qdata_force_max"], t["force_actions_max"], t["cg_max"], s["cg_iterations"]))
    fom = s["fom"]
    print("   figures of merit: CG (H1) %.4f, forces %.4f, UpdateQuadData %.4f, major kernels "
          "%.4f (megadofs or megaquads x steps / s)" % (fom["cg_h1"], fom["forces"],
                                                       fom["update_quad_data"], fom["major_kernels"]))
    return dict(case=case, zones=s["zones"], h1=s["h1_dofs"], l2=s["l2_dofs"],
                median=statistics.median(times) if times else None, mean=mean,
                wall=s["wall_seconds"], fom=fom)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blast", default=os.path.join(ROOT, "build", "app", "blast_gpu"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--out", default=os.path.join("out", "bench_cpu"))
    ap.add_argument("--cases", default="q2:16:40,q3:10:30")
    args = ap.parse_args()
    if not os.path.exists(args.blast):
        sys.exit("no blast_gpu at %s (build first, or give --blast)" % args.blast)
    print("blast_gpu CPU benchmark: 3D Sedov on box meshes of the unit cube")
    for line in machine():
        print(line)
    ver = subprocess.run([args.blast, "--version"], stdout=subprocess.PIPE, universal_newlines=True)
    print("binary: %s (%s)" % (args.blast, ver.stdout.strip()))
    res = [run_case(args, c) for c in args.cases.split(",")]
    print("\n| case | zones | H1 dofs | L2 dofs | median s/step | mean s/attempt | CG FOM | "
          "forces FOM | qdata FOM | total FOM |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in res:
        f = r["fom"]
        print("| %s | %d | %d | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f |"
              % (r["case"], r["zones"], r["h1"], r["l2"],
                 "%.3f" % r["median"] if r["median"] is not None else "-", r["mean"],
                 f["cg_h1"], f["forces"], f["update_quad_data"], f["major_kernels"]))


if __name__ == "__main__":
    main()
