#!/usr/bin/env python3
"""A gas at rest inside the quadratic Gmsh ball of tetrahedra (curved simplex walls).

  rest      BLAST MSH WORK  a gas at rest at constant pressure by the curved wall stays
            at rest: the velocity after t = 0.02 is round-off (below 1e-12; a normal at
            the node, not the weighted normal of the faces, moves it by 1e-2) at k = 1, 2, 3.
  rest-full BLAST MSH WORK  the same at k = 4, and at k = 2 refined in parallel (a node's
            record covers the up to 6 fine faces around it) and serially (full tier).

  rotated   BLAST BOX WORK  flat walls at any orientation: a uniform flow in the unit
            cube of tetrahedra with walls all round, and the same with the mesh and the
            velocity rotated by 30 degrees about (1, 2, 2) / 3, at k = 2 and 4, have the
            same energies at t = 0.02 to 1e-12 (at a vertex of flat quadratic and quartic faces the
            weighted normal vanishes; the node takes its faces' unit normals there).

MSH: the unit ball of order-2 tetrahedra (ball_tet.geo, ASCII format 4.1); BOX: the unit
cube of straight tetrahedra (box_tet.geo, ASCII format 2.2: attributes 1 and 2 its faces).
"""
import math
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


def rotation():
    x, y, z = (v / 3.0 for v in (1.0, 2.0, 2.0))
    c, s = math.cos(math.pi / 6), math.sin(math.pi / 6)
    return [[c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
            [y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s],
            [z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)]]


def rotated(blast, box, work):
    R = rotation()
    rot = lambda p: [sum(R[i][j] * p[j] for j in range(3)) for i in range(3)]
    with open(box) as f:
        lines = f.read().split("\n")
    a, b = lines.index("$Nodes"), lines.index("$EndNodes")
    for i in range(a + 2, b):
        t = lines[i].split()
        lines[i] = t[0] + " " + " ".join("%.17g" % v for v in rot([float(q) for q in t[1:4]]))
    box_r = os.path.join(work, "box_rotated.msh")
    with open(box_r, "w") as f:
        f.write("\n".join(lines))
    v0 = [1.0, 0.5, 0.3]
    for k in (2, 4):
        res = []
        for name, msh, v in (("axes", box, v0), ("rotated", box_r, rot(v0))):
            out = os.path.join(work, "flow_k%d_%s" % (k, name))
            cmd = [blast, DECK, "output.dir=" + out, "output.overwrite=true", "mesh.file=" + msh,
                   "boundary.rim.attributes=1 2", "time.t_final=0.02", "output.exact_error=false",
                   "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1),
                   "region.disc.velocity=" + " ".join("%.17g" % q for q in v),
                   "region.disc.pressure=1", "exact.velocity=0 0 0", "exact.pressure=1",
                   "solver.cg_tol=1e-14", "solver.cg_max_iter=1000"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print(p.stdout[-3000:])
                check(False, "k = %d, %s: exit %d" % (k, name, p.returncode))
                break
            with open(os.path.join(out, "summary.json")) as f:
                s = json.load(f)
            res.append((s["steps"], s["energy_kinetic"], s["energy_internal"]))
        if len(res) < 2:
            continue
        dk = abs(res[0][1] - res[1][1]) / res[0][1]
        di = abs(res[0][2] - res[1][2]) / res[0][2]
        check(res[0][0] == res[1][0] and dk < 1e-12 and di < 1e-12,
              "k = %d, box rotated 30 degrees: %d = %d steps, kinetic energy %.15g vs %.15g "
              "(%.1e), internal (%.1e), below 1e-12" %
              (k, res[0][0], res[1][0], res[0][1], res[1][1], dk, di))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("rest", "rest-full", "rotated"):
        sys.exit(__doc__)
    mode, blast, msh, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    if mode == "rotated":
        rotated(blast, msh, work)
    elif mode == "rest":
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
