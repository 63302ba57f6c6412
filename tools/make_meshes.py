#!/usr/bin/env python3
"""Write the verification meshes of the method spec (section 12) as MFEM mesh v1.0 files.

Every mesh is a structured grid given by its vertex coordinates ("breaks") along each
axis. Vertex ids are lexicographic, x fastest (id i + nx*j + nx*ny*l with nx, ny the
vertex counts per axis), as the spec numbers them. Zones are listed lexicographically
in MFEM order: quads counter-clockwise (v, v+1, v+1+nx, v+nx), hexes bottom face
counter-clockwise then top face. Boundary faces carry attribute 1, 2, 3 for faces
normal to x, y, z (spec 3.4), and are oriented with the outward normal (counter-clockwise
seen from outside), as MFEM expects.

The meshes of the verification problems of inputs/ (docs/verification.md) are built the
same way, with their own boundary attributes (a number per side of the box) and, for
Saltzman's piston, the classic skew of the vertices (x moved by (0.1 - y) sin(pi x)).

The curved disc (disc_curved_quad.mesh) is the unit disc as a square core and four
curved blocks of 2x2 quadrilaterals each, with MFEM's H1_2D_P2 `nodes` (Gauss-Lobatto
points of order 2: vertices, edge midpoints and centres, in MFEM's dof order) at the exact
points of the blocks' transfinite maps, so the rim's nodes lie on the circle; its
straight-sided twin (disc_straight_quad.mesh) has the same vertices with the nodes
interpolated linearly. The rim carries attribute 1.

Usage: tools/make_meshes.py [output folder]   (default: inputs/meshes of this repository)
Python 3 standard library only.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_options import refuse_unknown_options  # noqa: E402


def fmt(x):
    """Shortest exact text for a coordinate ("0", "0.5", "-1", "1.5")."""
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def grid(breaks, attr=None):
    """Vertices, zones (MFEM order), boundary faces (attr, MFEM order) of a tensor grid.
    attr(g, side): the attribute of the faces normal to axis g on its low (side 0) or high
    (side 1) end; default g + 1."""
    dim = len(breaks)
    if attr is None:
        def attr(g, side):
            return g + 1
    nvx = [len(b) for b in breaks] + [1] * (3 - dim)  # vertices per axis
    nzx = [n - 1 for n in nvx[:dim]] + [1] * (3 - dim)  # zones per axis

    def vid(i, j=0, l=0):
        return i + nvx[0] * (j + nvx[1] * l)

    verts = []
    for l in range(nvx[2]):
        for j in range(nvx[1]):
            for i in range(nvx[0]):
                verts.append([breaks[0][i], breaks[1][j] if dim > 1 else 0,
                              breaks[2][l] if dim > 2 else 0][:dim])

    zones = []
    for l in range(nzx[2]):
        for j in range(nzx[1]):
            for i in range(nzx[0]):
                if dim == 1:
                    zones.append([vid(i), vid(i + 1)])
                    continue
                bottom = [vid(i, j, l), vid(i + 1, j, l), vid(i + 1, j + 1, l), vid(i, j + 1, l)]
                if dim == 2:
                    zones.append(bottom)
                else:
                    zones.append(bottom + [v + vid(0, 0, 1) for v in bottom])

    bdr = []
    if dim == 1:
        bdr = [(attr(0, 0), [vid(0)]), (attr(0, 1), [vid(nzx[0])])]
    elif dim == 2:
        # Counter-clockwise around the domain: the domain is on the left of each edge.
        for i in range(nzx[0]):  # y = min, left to right
            bdr.append((attr(1, 0), [vid(i, 0), vid(i + 1, 0)]))
        for i in range(nzx[0]):  # y = max, right to left
            bdr.append((attr(1, 1), [vid(i + 1, nzx[1]), vid(i, nzx[1])]))
        for j in range(nzx[1]):  # x = min, downwards
            bdr.append((attr(0, 0), [vid(0, j + 1), vid(0, j)]))
        for j in range(nzx[1]):  # x = max, upwards
            bdr.append((attr(0, 1), [vid(nzx[0], j), vid(nzx[0], j + 1)]))
    else:
        for g in range(3):  # normal direction
            a, b = [h for h in range(3) if h != g]  # in-plane axes, e_a x e_b = +e_g or -e_g
            sign_ab = 1 if g != 1 else -1  # e_y x e_z = +x, e_x x e_z = -y, e_x x e_y = +z
            for side in (0, 1):
                outward = 1 if side else -1
                for q in range(nzx[b]):
                    for p in range(nzx[a]):
                        def corner(dp, dq):
                            idx = [0, 0, 0]
                            idx[g] = side * nzx[g]
                            idx[a] = p + dp
                            idx[b] = q + dq
                            return vid(*idx)
                        quad = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
                        if sign_ab != outward:
                            quad = [quad[0], quad[3], quad[2], quad[1]]
                        bdr.append((attr(g, side), quad))
    return verts, zones, bdr


GEOM = {1: (1, 0), 2: (3, 1), 3: (5, 3)}  # dim -> (element geometry, boundary geometry)


def write_mesh(path, title, breaks, attr=None, warp=None,
               source="from the method spec, section 12"):
    """warp(vertex) -> vertex: moves the grid's vertices (None: the grid as it is)."""
    dim = len(breaks)
    verts, zones, bdr = grid(breaks, attr)
    if warp:
        verts = [warp(v) for v in verts]
    geom, bgeom = GEOM[dim]
    lines = ["MFEM mesh v1.0", "", f"# {title}",
             f"# Written by tools/make_meshes.py {source}.",
             "# Geometry types: 0 point, 1 segment, 3 square, 5 cube.", "",
             "dimension", str(dim), "", "elements", str(len(zones))]
    lines += [" ".join(map(str, [1, geom] + z)) for z in zones]
    lines += ["", "boundary", str(len(bdr))]
    lines += [" ".join(map(str, [a, bgeom] + f)) for a, f in bdr]
    lines += ["", "vertices", str(len(verts)), str(dim)]
    lines += [" ".join(fmt(x) for x in v) for v in verts]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def halves(lo, hi, n):
    """n equal intervals of [lo, hi]; exact for the spec's meshes (multiples of 0.5)."""
    return [lo + (hi - lo) * k / n for k in range(n + 1)]


MESHES = {
    "square01_quad": ("[0,1]^2, 2x2 zones, vertices (0.5i, 0.5j), id i+3j",
                      [halves(0, 1, 2), halves(0, 1, 2)]),
    "cube01_hex": ("[0,1]^3, 2x2x2 zones, vertices (0.5i, 0.5j, 0.5l), id i+3j+9l",
                   [halves(0, 1, 2)] * 3),
    "rectangle01_quad": ("[0,7]x[0,3], 7x3 unit squares, vertices (i, j), id i+8j",
                         [list(range(8)), list(range(4))]),
    "box01_hex": ("[0,7]x[0,3]x[0,3], 4x2x2 zones, x-breaks {0,1,3,5,7}, "
                  "y/z-breaks {0,1.5,3}, id i+5j+15l",
                  [[0, 1, 3, 5, 7], [0, 1.5, 3], [0, 1.5, 3]]),
    "square_gresho": ("[-0.5,0.5]^2, 2x2 zones, vertices (-0.5+0.5i, -0.5+0.5j), id i+3j",
                      [halves(-0.5, 0.5, 2), halves(-0.5, 0.5, 2)]),
    "rt2D": ("[0,0.5]x[-1,1], 1x4 zones, vertices (0.5i, -1+0.5j), id i+2j",
             [[0, 0.5], halves(-1, 1, 4)]),
    "segment01": ("[0,1], 2 segments, vertices 0, 0.5, 1", [halves(0, 1, 2)]),
}


def octant_attr(g, side):
    """Noh: the symmetry planes x = 0, y = 0, z = 0 carry 1, 2, 3 (walls), the far sides 4."""
    return 4 if side else g + 1


def piston_attr(g, side):
    """Saltzman: the piston x = 0 carries 4, the wall x = 1 carries 1, y = 0 and 0.1 carry 2."""
    return 4 if (g, side) == (0, 0) else g + 1


def saltzman_skew(v):
    """The classic Saltzman mesh (Dukowicz and Meltz 1992): x moved by (0.1 - y) sin(pi x)."""
    x, y = v
    return [x + (0.1 - y) * math.sin(math.pi * x), y]


# The meshes of the verification problems: title, breaks, attr, warp.
PROBLEM_MESHES = {
    "noh2d_quarter": ("Noh 2D: [0,1]^2, 2x2 zones, walls x = 0 (1), y = 0 (2), outer sides 4",
                      [halves(0, 1, 2)] * 2, octant_attr, None),
    "noh3d_octant": ("Noh 3D: [0,1]^3, 2x2x2 zones, walls x = 0 (1), y = 0 (2), z = 0 (3), "
                     "outer sides 4", [halves(0, 1, 2)] * 3, octant_attr, None),
    "saltzman2d": ("Saltzman piston: [0,1]x[0,0.1], 100x10 zones, vertices (0.01i + (0.1 - "
                   "0.01j) sin(0.01 pi i), 0.01j); piston x = 0 (4), wall x = 1 (1), walls "
                   "y = 0 and 0.1 (2)", [[i / 100 for i in range(101)], [j / 100 for j in range(11)]],
                   piston_attr, saltzman_skew),
}


DISC_CORE = 0.4  # half-width of the core square of the curved disc


def disc_patch(b, u, v):
    """The curved disc's patch b at (u, v) in [0,1]^2: b = 0 the core square; b = 1..4 the
    blocks east, north, west, south (u radial from the core's side to the circle, v along
    it, counter-clockwise), each the transfinite blend of the side and the arc."""
    s = DISC_CORE
    if b == 0:
        return (-s + 2 * s * u, -s + 2 * s * v)
    t = -math.pi / 4 + v * math.pi / 2
    x = (1 - u) * s + u * math.cos(t)
    y = (1 - u) * (-s + 2 * s * v) + u * math.sin(t)
    c, si = [(1, 0), (0, 1), (-1, 0), (0, -1)][b - 1]
    return (c * x - si * y, si * x + c * y)


def write_curved_disc(path, curved, n=2):
    """The disc of 5 patches of n x n quadrilaterals with H1_2D_P2 nodes (see the module
    docstring); curved=False: the nodes interpolated linearly from the vertices."""
    key = {}  # rounded position -> vertex id
    verts, zones, bdr = [], [], []

    def vertex(p):
        k = (round(p[0], 9) + 0.0, round(p[1], 9) + 0.0)
        if k not in key:
            key[k] = len(verts)
            verts.append(p)
        return key[k]

    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]  # MFEM's counter-clockwise order
    params = []  # per zone: (patch, i, j)
    for b in range(5):
        for j in range(n):
            for i in range(n):
                zones.append([vertex(disc_patch(b, (i + a) / n, (j + c) / n))
                              for a, c in corners])
                params.append((b, i, j))
                if b > 0 and i == n - 1:  # the rim: the edge (1,0)-(1,1)
                    bdr.append((1, [zones[-1][1], zones[-1][2]]))

    def node(z, a, c):  # the node at (a/2, c/2) of zone z
        if not curved:
            p = [verts[v] for v in zones[z]]
            w = [(1 - a / 2) * (1 - c / 2), a / 2 * (1 - c / 2), a / 2 * c / 2,
                 (1 - a / 2) * c / 2]
            return tuple(sum(w[k] * p[k][d] for k in range(4)) for d in range(2))
        b, i, j = params[z]
        return disc_patch(b, (i + a / 2) / n, (j + c / 2) / n)

    # MFEM's dofs: vertices, edges (numbered by first appearance, one midpoint each), then
    # each zone's centre.
    values = [tuple(v) for v in verts]
    edges = {}
    mid = [(1, 0), (2, 1), (1, 2), (0, 1)]  # midpoints of the edges 01, 12, 23, 30
    for z, zv in enumerate(zones):
        for e in range(4):
            k = tuple(sorted((zv[e], zv[(e + 1) % 4])))
            if k not in edges:
                edges[k] = len(edges)
                values.append(node(z, *mid[e]))
    values += [node(z, 1, 1) for z in range(len(zones))]
    kind = "curved: nodes on the exact" if curved else "straight-sided: nodes interpolated"
    lines = ["MFEM mesh v1.0", "",
             f"# {os.path.basename(path)[:-5]}: the unit disc, a core square of half-width "
             f"{DISC_CORE} and 4 blocks, {len(zones)} quadrilaterals,",
             f"# order-2 nodes ({kind} linearly)." if not curved else
             f"# order-2 nodes ({kind} circle and block maps).",
             "# Written by tools/make_meshes.py (write_curved_disc). Rim: attribute 1.", "",
             "dimension", "2", "", "elements", str(len(zones))]
    lines += [" ".join(map(str, [1, 3] + z)) for z in zones]
    lines += ["", "boundary", str(len(bdr))]
    lines += [" ".join(map(str, [a, 1] + f)) for a, f in bdr]
    lines += ["", "vertices", str(len(verts)), "", "nodes", "FiniteElementSpace",
              "FiniteElementCollection: H1_2D_P2", "VDim: 2", "Ordering: 1", ""]
    lines += [" ".join(repr(float(x) + 0.0) for x in v) for v in values]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog="make_meshes.py", description=__doc__.split("\n\n")[0],
                                 epilog="Writes: " + ", ".join(n + ".mesh" for n in
                                                               list(MESHES) + list(PROBLEM_MESHES)
                                                               + ["disc_curved_quad",
                                                                  "disc_straight_quad"]))
    ap.add_argument("out", nargs="?", default=os.path.join(here, "..", "inputs", "meshes"),
                    help="folder for the mesh files (created; default inputs/meshes)")
    # "--" lets a folder whose name starts with "-" through; any other "-x" is refused.
    refuse_unknown_options(ap, argv)
    out = os.path.normpath(ap.parse_args(argv).out)
    os.makedirs(out, exist_ok=True)
    for name, (title, breaks) in MESHES.items():
        path = os.path.join(out, name + ".mesh")
        write_mesh(path, f"{name}: {title}", breaks)
        print(path)
    for name, (title, breaks, attr, warp) in PROBLEM_MESHES.items():
        path = os.path.join(out, name + ".mesh")
        write_mesh(path, f"{name}: {title}", breaks, attr, warp, "for inputs/" +
                   name.split("_")[0] + ".ini")
        print(path)
    for name, curved in (("disc_curved_quad", True), ("disc_straight_quad", False)):
        path = os.path.join(out, name + ".mesh")
        write_curved_disc(path, curved)
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
