#!/usr/bin/env python3
"""blast_gpu's VTK Lagrange cells (io/vtk_lagrange.h, io/viz_vtu.h) as VTK reads them.

    test_vtk_lagrange.py --writer vtk_lagrange_cells --work DIR

vtk_lagrange_cells writes one cell of every geometry (segment, triangle, quadrilateral,
tetrahedron, hexahedron) and order p = 1..8 into a .vtu; its nodes are the lattice points
xi = i/p in the node order blast_gpu computes, each at X(xi), a polynomial map of degree p
(per direction on tensor cells, in total on simplices; the formula below). Read with
vtkXMLUnstructuredGridReader, for every cell:
  * the cell type is VTK's Lagrange cell of the geometry, with (p+1)^d or binomial(p+d, d)
    points;
  * node v of the cell, whose reference coordinates (point data "xi") blast_gpu wrote, is
    where VTK puts node v: the cell's GetParametricCoords()[v] equal "xi" (to 1e-14; this
    is the node order itself), and the point is X(pcoords[v]);
  * at 20 random points of the reference element, EvaluateLocation (VTK's Lagrange
    interpolation of the nodes) equals X there to 1e-10: the cell is the curved map,
    not a permutation of it;
  * the cell's bounds hold the map's extreme values at the nodes.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import reference
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader

SEGMENT, TRIANGLE, SQUARE, TETRAHEDRON, CUBE = 1, 2, 3, 4, 5
DIM = {SEGMENT: 1, TRIANGLE: 2, SQUARE: 2, TETRAHEDRON: 3, CUBE: 3}
VTK_TYPE = {SEGMENT: 68, TRIANGLE: 69, SQUARE: 70, TETRAHEDRON: 71, CUBE: 72}
NAME = {SEGMENT: "segment", TRIANGLE: "triangle", SQUARE: "quadrilateral",
        TETRAHEDRON: "tetrahedron", CUBE: "hexahedron"}
failures = []


def check(cond, what):
    if not cond:
        print("FAIL  " + what)
        failures.append(what)
    return cond


def simplex(g):
    return g in (TRIANGLE, TETRAHEDRON)


def nnodes(g, p):
    d = DIM[g]
    if simplex(g):
        return (p + 1) * (p + 2) // 2 if d == 2 else (p + 1) * (p + 2) * (p + 3) // 6
    return (p + 1) ** d


def xmap(g, p, xi):
    """X_c = xi_c (0 for c >= dim) + 0.1 (c+1) P(xi)."""
    d = DIM[g]
    xi = np.asarray(xi, dtype=float)
    if simplex(g):
        P = (0.3 + xi[0] + 0.5 * xi[1] - 0.7 * xi[2]) ** p
    else:
        P = np.prod(xi[:d] ** p) + 0.5 * xi[0] ** p
    return np.array([(xi[c] if c < d else 0.0) + 0.1 * (c + 1) * P for c in range(3)])


def random_reference_point(g, rng):
    d = DIM[g]
    while True:
        x = np.zeros(3)
        x[:d] = rng.random(d)
        if not simplex(g) or x.sum() <= 1.0:
            return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--writer", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    path = os.path.join(args.work, "lagrange_cells.vtu")
    p = subprocess.run([args.writer, path], capture_output=True, text=True)
    print(p.stdout.strip(), p.stderr.strip())
    if not check(p.returncode == 0 and os.path.isfile(path), "vtk_lagrange_cells exit %d" %
                 p.returncode):
        return 1
    r = vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    o = r.GetOutput()
    check(o.GetNumberOfCells() == 40, "%d cells, want 40" % o.GetNumberOfCells())
    xi_all = vtk_to_numpy(o.GetPointData().GetArray("xi"))
    geoms = vtk_to_numpy(o.GetCellData().GetArray("geom"))
    orders = vtk_to_numpy(o.GetCellData().GetArray("order"))
    rng = np.random.default_rng(7)
    seen = set()
    for c in range(o.GetNumberOfCells()):
        g, pp = int(geoms[c]), int(orders[c])
        seen.add((g, pp))
        where = "%s of order %d" % (NAME[g], pp)
        cell = o.GetCell(c)
        n = nnodes(g, pp)
        if not check(cell.GetCellType() == VTK_TYPE[g] and cell.GetNumberOfPoints() == n,
                     "%s: VTK type %d with %d points, want %d with %d" %
                     (where, cell.GetCellType(), cell.GetNumberOfPoints(), VTK_TYPE[g], n)):
            continue
        ids = [cell.GetPointId(v) for v in range(n)]
        pc = cell.GetParametricCoords()
        pcoords = np.array([[pc[3 * v + k] for k in range(3)] for v in range(n)])
        xi = xi_all[ids]
        err = np.abs(pcoords - xi).max()
        check(err < 1e-14, "%s: VTK's parametric coordinates of the nodes differ from the "
              "lattice points written (max %.3g; node order)" % (where, err))
        pts = np.array([cell.GetPoints().GetPoint(v) for v in range(n)])
        want = np.array([xmap(g, pp, pcoords[v]) for v in range(n)])
        err_pts = np.abs(pts - want).max()
        check(err_pts < 1e-13, "%s: points differ from X(pcoords) by %.3g" % (where, err_pts))
        err_eval = 0.0
        w = [0.0] * n
        for _ in range(20):
            x = random_reference_point(g, rng)
            sub = reference(0)
            got = [0.0, 0.0, 0.0]
            cell.EvaluateLocation(sub, list(x), got, w)
            err_eval = max(err_eval, np.abs(np.array(got) - xmap(g, pp, x)).max())
        check(err_eval < 1e-10, "%s: EvaluateLocation differs from X by %.3g" % (where, err_eval))
        b = cell.GetBounds()
        lo, hi = want.min(axis=0), want.max(axis=0)
        check(all(abs(b[2 * k] - lo[k]) < 1e-12 and abs(b[2 * k + 1] - hi[k]) < 1e-12
                  for k in range(3)), "%s: bounds %s, nodes span %s .. %s" % (where, b, lo, hi))
        print("%s %-26s %3d nodes, order err %.1e, points %.1e, EvaluateLocation %.1e" %
              ("ok  " if err < 1e-14 and err_eval < 1e-10 else "FAIL", where, n, err, err_pts,
               err_eval))
    check(len(seen) == 40, "%d (geometry, order) pairs, want 40" % len(seen))
    print("test_vtk_lagrange: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
