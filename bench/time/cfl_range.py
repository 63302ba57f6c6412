#!/usr/bin/env python3
"""The CFL range in which each time integrator runs the Sedov problem to its end.

usage: bench/time/cfl_range.py [--blast build/app/blast_gpu] [--cfl 0.5,1,1.5,2,3]
                               [--solvers euler,rk2,...] [--dims 2,3] [--out DIR]

For every integrator, CFL number and dimension, runs Sedov (2D: 16x16 Q2-Q1 zones to
t = 0.3; 3D: 4^3 Q2-Q1 zones to t = 0.2) with the energy check off and prints one row:
whether it reached t_final, its steps and repeated steps, and the relative change of the
total energy |dE/E0| (the method conserves energy exactly only with rk2avg; the other
integrators change it by their time error). The stable range documented for
[time] cfl (docs/robustness.md, --help) is the largest CFL of this table at which every
run reaches t_final with |dE/E0| < 5 %.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blast", default=os.path.join(ROOT, "build", "app", "blast_gpu"))
    ap.add_argument("--cfl", default="0.5,1,1.5,2,2.5,3")
    ap.add_argument("--solvers", default="euler,rk2,rk3ssp,rk4,rk6,rk2avg")
    ap.add_argument("--dims", default="2,3")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    a = ap.parse_args()
    work = a.out or tempfile.mkdtemp(prefix="cfl_range_")
    os.makedirs(work, exist_ok=True)
    decks = {2: ("sedov2d.ini", ["mesh.refine_serial=2", "time.t_final=0.3"]),
             3: ("sedov3d.ini", ["mesh.refine_serial=1", "time.t_final=0.2"])}
    print(f"{'dim':>3} {'solver':>7} {'cfl':>5} {'end':>4} {'steps':>7} {'repeated':>8} {'|dE/E0|':>10}")
    for dim in [int(d) for d in a.dims.split(",")]:
        deck, extra = decks[dim]
        for ode in a.solvers.split(","):
            for cfl in a.cfl.split(","):
                out = os.path.join(work, f"d{dim}_{ode}_{cfl}")
                cmd = [a.blast, os.path.join(ROOT, "inputs", deck), *extra, f"time.cfl={cfl}",
                       f"time.ode_solver={ode}", "time.max_energy_change=0",
                       "output.print_every=1000000", f"output.dir={out}",
                       "output.overwrite=true"]
                env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
                try:
                    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=a.timeout, env=env, check=False)
                except subprocess.TimeoutExpired:
                    pass
                try:
                    with open(os.path.join(out, "summary.json")) as f:
                        s = json.load(f)
                    de = abs(s["energy_total"] - s["energy_total_initial"]) / abs(
                        s["energy_total_initial"])
                    print(f"{dim:>3} {ode:>7} {cfl:>5} {'yes':>4} {s['steps']:>7} "
                          f"{s['steps_repeated']:>8} {de:>10.2e}", flush=True)
                except (OSError, ValueError, KeyError):
                    print(f"{dim:>3} {ode:>7} {cfl:>5} {'no':>4} {'-':>7} {'-':>8} {'-':>10}",
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
