#!/usr/bin/env python3
"""Writes the hostile test meshes of tests/geometry.

Run from anywhere: python3 tests/geometry/meshes/make_meshes.py. Every mesh lists, as
boundary elements, the faces that belong to one zone only, except where a test needs a
face without one (the hanging nodes).
"""
import itertools
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Corners of a unit square / cube in MFEM order (quads ccw, hexes bottom ccw then top ccw).
QUAD = [(0, 0), (1, 0), (1, 1), (0, 1)]
HEX = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
# Faces of a hex as MFEM corner indices (a cycle each), and of a quad.
HEX_FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
QUAD_FACES = [(0, 1), (1, 2), (2, 3), (3, 0)]


class Mesh:
    def __init__(self, dim):
        self.dim, self.verts, self.index, self.elems = dim, [], {}, []

    def vertex(self, x):
        x = tuple(float(c) for c in x)
        if x not in self.index:
            self.index[x] = len(self.verts)
            self.verts.append(x)
        return self.index[x]

    def box(self, lo, hi):
        """A zone with corners lo, hi (axis-aligned)."""
        ref = QUAD if self.dim == 2 else HEX
        ids = [self.vertex([lo[g] + r[g] * (hi[g] - lo[g]) for g in range(self.dim)]) for r in ref]
        self.elems.append(ids)
        return ids

    def boundary(self, skip):
        faces = QUAD_FACES if self.dim == 2 else HEX_FACES
        count = {}
        for e in self.elems:
            for f in faces:
                key = tuple(sorted(e[i] for i in f))
                count.setdefault(key, [0, [e[i] for i in f]])[0] += 1
        out = []
        for key, (n, cyc) in count.items():
            pts = [self.verts[v] for v in cyc]
            if n != 1 or skip(pts):
                continue
            # attribute: the direction in which the face is flat
            attr = next(g + 1 for g in range(self.dim) if len({p[g] for p in pts}) == 1)
            out.append((attr, cyc))
        return out

    def write(self, name, comment, skip=lambda pts: False, coords=None):
        verts = list(self.verts)
        for v, c, value in coords or []:
            verts[v] = tuple(value if g == c else verts[v][g] for g in range(self.dim))
        bdr = self.boundary(skip)
        geom, bgeom = (3, 1) if self.dim == 2 else (5, 3)
        with open(os.path.join(HERE, name), "w") as f:
            f.write("MFEM mesh v1.0\n\n# %s\n# written by tests/geometry/meshes/make_meshes.py\n\n" % comment)
            f.write("dimension\n%d\n\nelements\n%d\n" % (self.dim, len(self.elems)))
            for e in self.elems:
                f.write("1 %d %s\n" % (geom, " ".join(map(str, e))))
            f.write("\nboundary\n%d\n" % len(bdr))
            for a, cyc in bdr:
                f.write("%d %d %s\n" % (a, bgeom, " ".join(map(str, cyc))))
            f.write("\nvertices\n%d\n%d\n" % (len(verts), self.dim))
            for v in verts:
                f.write(" ".join("%.17g" % c for c in v) + "\n")


def grid(dim, n, h=1.0):
    m = Mesh(dim)
    for idx in itertools.product(*[range(n)] * dim):
        idx = idx[::-1]  # x fastest
        m.box([i * h for i in idx], [(i + 1) * h for i in idx])
    return m


def main():
    # Item 9: hanging nodes. 2D: zone 0 = [0,1]^2, its right neighbour split in two.
    m = Mesh(2)
    m.box((0, 0), (1, 1))
    m.box((1, 0), (2, 0.5))
    m.box((1, 0.5), (2, 1))
    on_x1 = lambda pts: all(p[0] == 1.0 for p in pts)  # the interior faces x = 1
    m.write("hanging2d.mesh", "a hanging node at (1, 0.5): the face x = 1 of zone 0 has no neighbour",
            skip=on_x1)
    # 3D: zone 0 = [0,1]^3, its right neighbour split in two along y.
    m = Mesh(3)
    m.box((0, 0, 0), (1, 1, 1))
    m.box((1, 0, 0), (2, 0.5, 1))
    m.box((1, 0.5, 0), (2, 1, 1))
    m.write("hanging3d.mesh", "hanging nodes on x = 1: the face x = 1 of zone 0 has no neighbour",
            skip=on_x1)
    # Boundary faces missing from the boundary section (the mesh is conforming): no boundary
    # section at all (2D); the side x = 1 left out (2D, 3D).
    m = grid(2, 2, 0.5)
    m.write("no_boundary2d.mesh", "a 2x2 square whose boundary section is empty", skip=lambda pts: True)
    m.write("missing_side2d.mesh", "a 2x2 square whose boundary section omits the side x = 1",
            skip=lambda pts: all(p[0] == 1.0 for p in pts))
    m = grid(3, 2, 0.5)
    m.write("missing_side3d.mesh", "a 2x2x2 cube whose boundary section omits the side y = 0",
            skip=lambda pts: all(p[1] == 0.0 for p in pts))
    # Duplicated elements: a 2x2 square with zone 1 repeated as zone 4; a 2x2x2 cube with
    # zone 6 repeated (vertices in another order) as zone 8.
    m = grid(2, 2, 0.5)
    m.elems.append(list(m.elems[1]))
    m.write("duplicate2d.mesh", "zone 4 repeats zone 1")
    m = grid(3, 2, 0.5)
    e = m.elems[6]
    m.elems.append([e[1], e[2], e[3], e[0], e[5], e[6], e[7], e[4]])  # rotated, same zone
    m.write("duplicate3d.mesh", "zone 8 repeats zone 6 (rotated)")
    # A face shared by three zones: [1,2]x... and [1,3]x... both attached to x = 1 of zone 0.
    m = Mesh(2)
    m.box((0, 0), (1, 1))
    m.box((1, 0), (2, 1))
    m.box((1, 0), (3, 1))
    m.write("three_zones2d.mesh", "the edge x = 1 belongs to zones 0, 1 and 2")
    m = Mesh(3)
    m.box((0, 0, 0), (1, 1, 1))
    m.box((1, 0, 0), (2, 1, 1))
    m.box((1, 0, 0), (3, 1, 1))
    m.write("three_zones3d.mesh", "the face x = 1 belongs to zones 0, 1 and 2")
    # Item 8: huge coordinates. 3D: a 2x2x2 unit cube with its corner (1,1,1) at 1e300
    # in x, y and z: the Jacobian determinant overflows (1e300^3).
    m = grid(3, 2, 0.5)
    v = m.index[(1.0, 1.0, 1.0)]
    m.write("huge3d.mesh", "vertex (1,1,1) moved to (1e300, 1e300, 1e300)",
            coords=[(v, 0, 1e300), (v, 1, 1e300), (v, 2, 1e300)])
    # 3D: a 2x2x2 cube of side 2e120: every coordinate below the accepted 1e150, but the
    # Jacobian determinant (1e120^3) overflows.
    m = grid(3, 2, 1e120)
    m.write("jacobian3d.mesh", "a cube of side 2e120: det J = 1e360 overflows")
    # 2D: the unit square (2x2) with a corner at -1e308 in x (finite Jacobians in the file,
    # an overflow only at the high-order points of the setup).
    m = grid(2, 2, 0.5)
    v = m.index[(0.0, 1.0)]
    m.write("huge2d.mesh", "vertex (0,1) moved to (-1e308, 1)", coords=[(v, 0, -1e308)])


if __name__ == "__main__":
    main()
