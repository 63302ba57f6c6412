#!/usr/bin/env python3
"""Runs of blast_gpu on a quadratic Gmsh triangle disc (curved simplex input).

  volume   BLAST MSH2 MSH1 WORK  the initial mesh of runs at k = 1..4 (and refined
           serially and in parallel at k = 2, 3): its volume (the internal energy of
           p = 1, gamma = 2, at rest) against the area the quadratic boundary arcs
           enclose, computed here from the file (Archimedes: the parabolic segment over
           a chord is 4/3 of the triangle of the chord and the arc's middle node), and
           at k = 1 the straight polygon's area (order-1 positions).
  rotation BLAST MSH2 MSH1 WORK  a gas at rest at constant pressure by the curved wall
           stays at rest (k = 1..4, to round-off); steady rigid rotation (the rotation
           deck, a wall rim) on the quadratic disc and its straight twin (same vertices)
           at serial refinement levels 0 and 1, k = 2 and 3: the velocity L2 error
           against the exact steady state is below a bound on the curved disc (lower at
           the last level than at level 0 for k = 2), and well below the straight disc's
           at the refined levels (whose rim stays the coarse polygon: refinement puts
           nodes on its chords, whose normals differ from the circle's).
  rotation-study ...  the same over levels 0, 1, 2 (full tier).
  rotation-mixed ...  the rotation checks on a disc of quadrilaterals and triangles
           (geo/disc_mixed.geo), levels 0 and 1, the curved disc's errors below 2e-3.

MSH2, MSH1: the disc with elements of order 2 and 1 (ASCII format 4.1).
"""
import json
import math
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


def read_msh41(path):
    """Node coordinates by tag and the boundary elements (3-node lines, type 8, or 2-node
    lines, type 1) of an ASCII Gmsh 4.1 file."""
    with open(path) as f:
        lines = [l.strip() for l in f]
    nodes, lines3 = {}, []
    i = lines.index("$Nodes") + 1
    nblocks = int(lines[i].split()[0])
    i += 1
    for _ in range(nblocks):
        n = int(lines[i].split()[3])
        tags = [int(t) for t in lines[i + 1:i + 1 + n]]
        for k, t in enumerate(tags):
            nodes[t] = [float(v) for v in lines[i + 1 + n + k].split()]
        i += 1 + 2 * n
    i = lines.index("$Elements") + 1
    nblocks = int(lines[i].split()[0])
    i += 1
    for _ in range(nblocks):
        dim, _tag, etype, n = (int(v) for v in lines[i].split())
        for k in range(n):
            v = [int(t) for t in lines[i + 1 + k].split()[1:]]
            if dim == 1 and etype in (1, 8):
                lines3.append(v)
        i += 1 + n
    return nodes, lines3


def areas(path):
    """(straight polygon area, area inside the quadratic arcs) of the disc's boundary."""
    nodes, edges = read_msh41(path)
    poly = curved = 0.0
    for e in edges:
        a, b = nodes[e[0]], nodes[e[1]]
        chord = 0.5 * (a[0] * b[1] - a[1] * b[0])  # the triangle (origin, a, b), signed
        poly += chord
        curved += chord
        if len(e) == 3:
            m = nodes[e[2]]
            # 4/3 of the triangle (a, m, b): positive where the arc bulges to the right of a->b
            tri = 0.5 * ((b[0] - a[0]) * (m[1] - a[1]) - (b[1] - a[1]) * (m[0] - a[0]))
            curved -= 4.0 / 3.0 * tri
    return abs(poly), abs(curved)


def run(blast, work, name, args):
    out = os.path.join(work, name)
    cmd = [blast, DECK, "output.dir=" + out, "output.overwrite=true"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout[-3000:])
        check(False, "%s: exit %d" % (name, p.returncode))
        return None
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def cmd_volume(blast, msh2, msh1, work):
    poly, curved = areas(msh2)
    poly1, _ = areas(msh1)
    print("areas: polygon %.15g, quadratic arcs %.15g (pi %.15g)" % (poly, curved, math.pi))
    check(abs(poly - poly1) <= 1e-14 * poly, "the order-1 disc has the same polygon")
    # k = 1..4 on the file; refined in reference space, serially and in parallel
    for k, rs, rp in ((1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0), (2, 1, 0), (3, 1, 1)):
        s = run(blast, work, "volume_k%d_s%d_p%d" % (k, rs, rp),
                ["mesh.file=" + msh2, "boundary.rim.attributes=rim", "time.t_final=1e-9",
                 "mesh.refine_serial=%d" % rs, "mesh.refine_parallel=%d" % rp,
                 "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1),
                 "material.gas.gamma=2", "region.disc.pressure=1", "region.disc.velocity=0 0",
                 "output.exact_error=false"])
        if s is None:
            continue
        vol = s["energy_internal"]
        want = poly if k == 1 else curved
        check(abs(vol - want) <= 1e-12 * want,
              "k = %d, refine_serial %d, refine_parallel %d: initial volume %.15g = %s area "
              "%.15g (difference %.1e)" %
              (k, rs, rp, vol, "polygon" if k == 1 else "curved", want, vol - want))


def cmd_rotation(blast, msh2, msh1, work, levels, bound=5e-4):
    # A gas at rest at constant pressure by the curved wall stays at rest (k = 1..4).
    for k in (1, 2, 3, 4):
        s = run(blast, work, "rest_k%d" % k,
                ["mesh.file=" + msh2, "boundary.rim.attributes=rim", "time.t_final=0.05",
                 "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1),
                 "region.disc.velocity=0 0", "exact.velocity=0 0", "region.disc.pressure=1",
                 "exact.pressure=1"])
        e = s["velocity_error_linf"] if s else float("nan")
        check(e < 1e-12, "at rest, k = %d: velocity %.1e after t = 0.05 (below 1e-12)" % (k, e))
    for k in (2, 3):
        err = {}
        for kind, msh in (("curved", msh2), ("straight", msh1)):
            for lev in levels:
                s = run(blast, work, "rotation_k%d_%s_L%d" % (k, kind, lev),
                        ["mesh.file=" + msh, "boundary.rim.attributes=rim",
                         "mesh.refine_serial=%d" % lev, "time.t_final=0.05",
                         "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1)])
                err[kind, lev] = s["velocity_error_l2"] if s else float("nan")
        for lev in levels:
            print("k = %d, level %d: velocity L2 error curved %.3e, straight %.3e" %
                  (k, lev, err["curved", lev], err["straight", lev]))
        check(max(err["curved", l] for l in levels) < bound,
              "k = %d, curved disc: errors below %g" % (k, bound))
        if k == 2:  # at k = 3 the coarse arcs' geometric error dominates from level 0
            check(err["curved", levels[-1]] < 0.75 * err["curved", 0],
                  "k = 2, curved disc: the error decreases over the levels by 0.75")
        for lev in levels[1:]:
            check(err["curved", lev] < 0.05 * err["straight", lev],
                  "k = %d, level %d: curved %.2e below 0.05 x straight %.2e" %
                  (k, lev, err["curved", lev], err["straight", lev]))


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("volume", "rotation", "rotation-study",
                                                  "rotation-mixed"):
        print(__doc__)
        return 2
    mode, blast, msh2, msh1, work = sys.argv[1:]
    msh2, msh1 = os.path.abspath(msh2), os.path.abspath(msh1)
    os.makedirs(work, exist_ok=True)
    if mode == "volume":
        cmd_volume(blast, msh2, msh1, work)
    elif mode == "rotation-mixed":
        cmd_rotation(blast, msh2, msh1, work, (0, 1), bound=2e-3)
    else:
        cmd_rotation(blast, msh2, msh1, work, (0, 1, 2) if mode == "rotation-study" else (0, 1))
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
