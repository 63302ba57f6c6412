#!/usr/bin/env python3
"""A gas at rest inside the quadratic Gmsh ball of tetrahedra (curved simplex walls).

  rest      BLAST MSH WORK  a gas at rest at constant pressure by the curved wall stays
            at rest: the velocity after t = 0.02 is round-off (below 1e-12; a normal at
            the node, not the weighted normal of the faces, moves it by 1e-2) at k = 1, 2, 3.
  rest-full BLAST MSH WORK  the same at k = 4, and at k = 2 refined in parallel (a node's
            record covers the up to 6 fine faces around it) and serially (full tier).

MSH: the unit ball of order-2 tetrahedra (ball_tet.geo, ASCII format 4.1).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "..", "verification", "decks", "rotation_disc.ini")
FAILS = []


def check(ok, what):
    print(("PASS  " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILS.append(what)


def rest(blast, msh, work, name, k, args):
    out = os.path.join(work, name)
    cmd = [blast, DECK, "output.dir=" + out, "output.overwrite=true", "mesh.file=" + msh,
           "boundary.rim.attributes=rim", "time.t_final=0.02",
           "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1),
           "region.disc.velocity=0 0 0", "exact.velocity=0 0 0", "region.disc.pressure=1",
           "exact.pressure=1"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout[-3000:])
        check(False, "%s: exit %d" % (name, p.returncode))
        return
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    e = s["velocity_error_linf"]
    check(s["steps"] >= 1 and e < 1e-12,
          "%s: at rest, k = %d, %d steps: velocity %.1e after t = 0.02 (below 1e-12)" %
          (name, k, s["steps"], e))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("rest", "rest-full"):
        sys.exit(__doc__)
    mode, blast, msh, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    if mode == "rest":
        for k in (1, 2, 3):
            rest(blast, msh, work, "rest_k%d" % k, k, [])
    else:
        rest(blast, msh, work, "rest_k4", 4, [])
        rest(blast, msh, work, "rest_k2_rp1", 2, ["mesh.refine_parallel=1"])
        rest(blast, msh, work, "rest_k2_rs1", 2, ["mesh.refine_serial=1"])
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
