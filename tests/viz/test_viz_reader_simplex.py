#!/usr/bin/env python3
"""Triangles, tetrahedra and curved zones as ParaView's own readers read blast_gpu's dumps.

    test_viz_reader_simplex.py --blast EXE --mpiexec MPIEXEC --decks DIR --inputs DIR
                               --work DIR [--gmsh GMSH]

Runs blast_gpu (in WORK), a dump every 2 steps:
  tri_p2_r1   tests/verification/decks/sedov_tri.ini, 4x4 box zones (32 triangles), P2,
              1 rank, viz_refine = 4 (the XDMF sub-cells are not the cell's nodes)
  tri_p2_r2   the same on 2 ranks, viz_refine = k
  tri_p3_r2   P3-P2 on 2 ranks
  tet_p1_r2   sedov_tet.ini, 2x2x2 box zones (48 tetrahedra), P1-P0, 2 ranks
  tet_p2_r1   P2-P1, 1 rank, viz_refine = 3
  disc_quad   rotation_disc.ini: inputs/meshes/disc_curved_quad.mesh (20 quadratic quads)
  disc_tri    with --gmsh: the unit disc of quadratic Gmsh triangles (tests/mesh/geo/
              disc_tri.geo, -order 2: 86 triangles, rim of 20 edges), 2 ranks
  cyl_hex     with --gmsh: Sedov on the quarter cylinder r <= 1, 0 <= z <= 1/2 of quadratic
              Gmsh hexahedra (tests/mesh/geo/quarter_cylinder_hex.geo, -order 2: 144
              hexahedra, the quarter circle in 8 edges), walls, 2 ranks
  mixed_r1    with --gmsh: Sedov on the unit square of quadrilaterals and triangles
              (tests/mesh/geo/mixed_square.geo refined once: 32 quadrilaterals, 88
              triangles; tests/mesh/gmsh_sedov_mixed.ini), Q2/P2, 1 rank, viz_refine = 3
  mixed_r2    the same on 2 ranks, viz_refine = k (the Lagrange nodes are the sub-cells')
  mixed_p3_r2 Q3/P3 (L2 order 2) on 2 ranks, viz_refine = k
Each series is first checked as test_viz_reader.py checks any series (check_series: XDMF
through vtkXdmf3Reader and vtkXdmfReader, the .pvd / .pvtu against the HDF5 dumps, with
the simplex node and sub-cell orders), then through ParaView's own time-series reader
vtkPVDReader (the reader ParaView opens blast.pvd with):
  * its TIME_STEPS are the dumps' /time attributes bit for bit; at every step the output
    is one vtkUnstructuredGrid whose time is that step, with one cell per zone (the zones,
    not the sub-cells: every global zone id once), every cell of the Lagrange type of the
    zone (69 triangle, 70 quadrilateral, 71 tetrahedron; on the mixed square each zone
    its own, with its own nodes: 6 or 9 at order 2), as many points as the zones' nodes, the five point arrays and four cell arrays with a tuple per point / cell, and
    the .pvtu lists one piece per rank, the `rank` array holding every rank;
  * vtkIntegrateAttributes (ParaView's Integrate Variables): on the Sedov box (walls on
    every face, so the domain stays the unit square / cube) the area / volume is 1 at every
    dump to 1e-12, and the mass (density integrated) is 1 at t = 0 to 1e-12 and within
    2e-2 of it later (VTK integrates the nodal interpolant of the density, a rational
    function of the reference point: 0.9 % off on 4x4 box triangles at t = 0.1);
  * curved meshes at t = 0: the cells' area (volume) integrated by VTK after
    vtkTessellatorFilter (ParaView's Tessellate: it subdivides the Lagrange cells with
    their own maps; 5 levels in 2D, 2 in 3D) equals that of the quadratic rim, for N rim
    edges of angle t with nodes on the circle N/2 sin t + N (4/3) sin(t/2)(1 - cos(t/2))
    (a parabola through the ends and midpoint of an arc bounds 4/3 of their triangle;
    times the height 1/2 for the quarter cylinder), to 2e-4 (found: 8e-5, 1.3e-5, 3.9e-5),
    and is 20 times or more closer to the circle's than the straight rim's N/2 sin t; the
    mass is that measure (density 1) to 2e-4 too.
"""
import argparse
import glob
import math
import os
import sys
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as SDDP
from vtkmodules.vtkFiltersGeneral import vtkTessellatorFilter
from vtkmodules.vtkFiltersParallel import vtkIntegrateAttributes
from paraview.modules.vtkPVVTKExtensionsIOCore import vtkPVDReader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_viz_reader as tvr  # noqa: E402  (check, run, check_series, failures)

check = tvr.check
LAGRANGE = {(2, 3): 69, (2, 4): 70, (3, 4): 71, (3, 8): 72}  # (dim, corners) -> VTK type
POINT_ARRAYS = {"density": 1, "velocity": 3, "specific_internal_energy": 1, "pressure": 1,
                "sound_speed": 1}
CELL_ARRAYS = ("material", "attribute", "rank", "zone")


def make_runs(args):
    tri = [os.path.join(args.decks, "sedov_tri.ini"), "mesh.elements=4 4", "time.t_final=0.1"]
    tet = [os.path.join(args.decks, "sedov_tet.ini"), "time.t_final=0.1"]
    disc = [os.path.join(args.decks, "rotation_disc.ini"), "time.t_final=0.1",
            "mesh.file=" + os.path.join(args.inputs, "meshes", "disc_curved_quad.mesh")]
    runs = [("tri_p2_r1", 1, "box", tri + ["output.viz_refine=4"]),
            ("tri_p2_r2", 2, "box", tri),
            ("tri_p3_r2", 2, "box", tri + ["fem.order_kinematic=3", "fem.order_thermo=2"]),
            ("tet_p1_r2", 2, "box", tet + ["fem.order_kinematic=1", "fem.order_thermo=0"]),
            ("tet_p2_r1", 1, "box", tet + ["output.viz_refine=3"]),
            ("disc_quad", 1, "disc", disc)]
    if args.gmsh:
        geo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mesh", "geo")
        tri = os.path.join(args.work, "disc_tri.msh")
        cyl = os.path.join(args.work, "quarter_cylinder_hex.msh")
        p = tvr.run([args.gmsh, "-2", "-order", "2", os.path.join(geo, "disc_tri.geo"), "-format",
                     "msh41", "-o", tri])
        if check(p.returncode == 0, "gmsh disc_tri.geo: exit %d" % p.returncode):
            runs.append(("disc_tri", 2, "disc", disc[:2] + ["mesh.file=" + tri,
                                                            "boundary.rim.attributes=rim"]))
        p = tvr.run([args.gmsh, "-3", "-order", "2", os.path.join(geo, "quarter_cylinder_hex.geo"),
                     "-format", "msh41", "-o", cyl])
        deck = os.path.join(args.work, "quarter_cylinder_hex.ini")
        with open(deck, "w") as f:
            f.write("[problem]\nname = sedov\n\n[mesh]\nfile = quarter_cylinder_hex.msh\n\n"
                    "[time]\nt_final = 0.01\n\n[boundary.walls]\n"
                    "attributes = bottom top symmetry outer\ntype = wall\n")
        if check(p.returncode == 0, "gmsh quarter_cylinder_hex.geo: exit %d" % p.returncode):
            runs.append(("cyl_hex", 2, "cyl", [deck]))
        mixed = os.path.join(args.work, "mixed_square.msh")
        p = tvr.run([args.gmsh, "-2", os.path.join(geo, "mixed_square.geo"), "-format", "msh41",
                     "-o", mixed])
        deck = [os.path.join(geo, "..", "gmsh_sedov_mixed.ini"), "mesh.file=" + mixed,
                "time.t_final=0.01"]
        if check(p.returncode == 0, "gmsh mixed_square.geo: exit %d" % p.returncode):
            runs.append(("mixed_r1", 1, "box", deck + ["output.viz_refine=3"]))
            runs.append(("mixed_r2", 2, "box", deck))
            runs.append(("mixed_p3_r2", 2, "box", deck + ["fem.order_kinematic=3",
                                                          "fem.order_thermo=2"]))
    out = []
    for name, ranks, kind, extra in runs:
        d = os.path.join(args.work, name)
        p = tvr.run([args.mpiexec, "-n", str(ranks), "--oversubscribe", args.blast] + extra[:1] +
                    extra[1:] + ["output.viz_steps=2", "output.print_every=1000",
                                 "output.dir=" + d, "output.overwrite=true"])
        viz = os.path.join(d, "viz")
        n = len(glob.glob(os.path.join(viz, "viz_*.h5")))
        if check(p.returncode == 0 and n >= 2 and os.path.isfile(os.path.join(viz, "blast.pvd")),
                 "%s: blast_gpu exit %d, %d dumps (want >= 2) and blast.pvd" %
                 (name, p.returncode, n)):
            out.append((name, ranks, kind, viz))
    return out


def integrate(grid, subdivisions=0):
    """vtkIntegrateAttributes of grid (after vtkTessellatorFilter with that many levels):
    (area or volume, integrated density)."""
    src = grid
    if subdivisions:
        t = vtkTessellatorFilter()
        t.SetInputData(grid)
        t.SetMaximumNumberOfSubdivisions(subdivisions)
        t.SetChordError(1e-9)
        t.Update()
        src = t.GetOutput()
    ia = vtkIntegrateAttributes()
    ia.SetInputData(src)
    ia.Update()
    g = ia.GetOutput()
    measure = g.GetCellData().GetArray("Volume") or g.GetCellData().GetArray("Area")
    return measure.GetTuple1(0), g.GetPointData().GetArray("density").GetTuple1(0)


def check_curved(name, kind, where, o, notes):
    """The quadratic disc (kind disc) or quarter cylinder of height 1/2 (cyl) at t = 0: the
    measure VTK integrates after tessellation against the exact one of the quadratic rim."""
    P = vtk_to_numpy(o.GetPoints().GetData())
    on = np.abs(np.hypot(P[:, 0], P[:, 1]) - 1) < 1e-12
    if kind == "cyl":
        on &= np.abs(P[:, 2]) < 1e-12
    nrim = len(np.unique(np.round(P[on], 9), axis=0))  # corners and edge midpoints
    # a closed rim of N edges has 2N nodes, the quarter arc 2N + 1
    nedge, arc, height = (nrim // 2, 2 * math.pi, 1.0) if kind == "disc" else (
        (nrim - 1) // 2, math.pi / 2, 0.5)
    check(nedge >= 8 and nrim == 2 * nedge + (kind == "cyl"), "%s: %d rim nodes" % (where, nrim))
    th = arc / nedge
    straight = height * nedge * 0.5 * math.sin(th)
    exact = straight + height * nedge * 4 / 3 * math.sin(th / 2) * (1 - math.cos(th / 2))
    true = height * arc / 2  # the circle's
    plain = integrate(o)[0]
    meas, mass = integrate(o, 5 if kind == "disc" else 2)
    check(abs(meas - exact) < 2e-4 and abs(mass - exact) < 2e-4,
          "%s: VTK's measure %.12g and mass %.12g, the quadratic rim's %.12g" %
          (where, meas, mass, exact))
    check(abs(meas - true) * 20 < abs(straight - true),
          "%s: VTK's measure %.12g is not 20 times closer to the circle's %.12g than the "
          "straight rim's %.12g" % (where, meas, true, straight))
    notes.append("%d rim edges: measure (tessellated) %.9f, quadratic rim %.9f, circle's - "
                 "measure %.2g, straight rim %.6f (off %.2g), untessellated %.6f" %
                 (nedge, meas, exact, true - meas, straight, true - straight, plain))


def check_pvd(name, ranks, kind, folder):
    t0, nfail = time.time(), len(tvr.failures)
    dumps = sorted(glob.glob(os.path.join(folder, "viz_*.h5")))
    ref = []
    for path in dumps:
        with h5py.File(path, "r") as f:
            # the corners of each zone's sub-cells (/topology of a mixed mesh: XDMF's Mixed)
            dim, refine = int(f.attrs["dim"]), int(f.attrs["refine"])
            ncv = tvr.cells_of({"topology": f["topology"][...]})[0][::refine ** dim]
            ref.append((float(f.attrs["time"]), dim, int(f.attrs["zones_global"]), ncv))
    times = [r[0] for r in ref]
    pvd = os.path.join(folder, "blast.pvd")
    r = vtkPVDReader()
    r.SetFileName(pvd)
    r.UpdateInformation()
    ts = r.GetOutputInformation(0).Get(SDDP.TIME_STEPS())
    ts = list(ts) if ts is not None else []
    if not check(ts == times, "%s: vtkPVDReader time steps %s, HDF5 /time %s" % (name, ts, times)):
        return
    files = [e.get("file") for e in ET.parse(pvd).getroot().find("Collection").findall("DataSet")]
    notes = []
    for i, (t, dim, nz, ncv) in enumerate(ref):
        where = "%s %s (t = %r)" % (name, files[i], t)
        npieces = len(list(ET.parse(os.path.join(folder, files[i])).getroot().iter("Piece")))
        check(npieces == ranks, "%s: %d pieces, %d ranks" % (where, npieces, ranks))
        r.UpdateTimeStep(t)
        o = r.GetOutputDataObject(0)
        if not check(o is not None and o.IsA("vtkUnstructuredGrid"), "%s: output %s" %
                     (where, o.GetClassName() if o is not None else None)):
            continue
        check(o.GetInformation().Get(o.DATA_TIME_STEP()) == t, "%s: DATA_TIME_STEP %r" %
              (where, o.GetInformation().Get(o.DATA_TIME_STEP())))
        types = vtk_to_numpy(o.GetCellTypesArray())
        want = np.array([LAGRANGE[(dim, n)] for n in ncv])  # the zones in the HDF5 order
        check(o.GetNumberOfCells() == nz and np.array_equal(types, want),
              "%s: %d cells of types %s; want %d zones of types %s" %
              (where, o.GetNumberOfCells(), np.unique(types), nz, np.unique(want)))
        if i == 0 and len(np.unique(want)) > 1:
            notes.append("cell types %s" % dict(zip(*[u.tolist() for u in np.unique(
                types, return_counts=True)])))
        npts = sum(o.GetCell(c).GetNumberOfPoints() for c in range(o.GetNumberOfCells()))
        check(o.GetNumberOfPoints() == npts, "%s: %d points, the cells have %d" %
              (where, o.GetNumberOfPoints(), npts))
        pd, cd = o.GetPointData(), o.GetCellData()
        for a, ncomp in POINT_ARRAYS.items():
            arr = pd.GetArray(a)
            check(arr is not None and arr.GetNumberOfTuples() == o.GetNumberOfPoints() and
                  arr.GetNumberOfComponents() == ncomp, "%s: point array %s (%s)" %
                  (where, a, None if arr is None else (arr.GetNumberOfTuples(),
                                                       arr.GetNumberOfComponents())))
        for a in CELL_ARRAYS:
            arr = cd.GetArray(a)
            check(arr is not None and arr.GetNumberOfTuples() == nz, "%s: cell array %s" % (where, a))
        if cd.GetArray("zone") is not None and cd.GetArray("rank") is not None:
            zone = np.sort(vtk_to_numpy(cd.GetArray("zone")))
            check(np.array_equal(zone, np.arange(nz)), "%s: the zone ids are not each zone once" % where)
            rk = np.unique(vtk_to_numpy(cd.GetArray("rank")))
            check(np.array_equal(rk, np.arange(ranks)), "%s: ranks %s" % (where, rk))
        if kind == "box":
            vol, mass = integrate(o)
            check(abs(vol - 1) < 1e-12, "%s: domain measure %.17g, exact 1" % (where, vol))
            tol = 1e-12 if i == 0 else 2e-2
            check(abs(mass - 1) < tol, "%s: mass %.17g, exact 1 (tolerance %g)" % (where, mass, tol))
            if i in (0, len(ref) - 1):
                notes.append("t = %g: volume - 1 = %.2g, mass - 1 = %.2g" % (t, vol - 1, mass - 1))
        elif i == 0:
            check_curved(name, kind, where, o, notes)
    for n in notes:
        print("      %s: %s" % (name, n))
    print("%s %s [vtkPVDReader]: %d time steps, %d zones, %d ranks, %.2f s" %
          ("ok   " if len(tvr.failures) == nfail else "FAIL ", name, len(ts), ref[-1][2], ranks,
           time.time() - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("--blast", "--decks", "--inputs", "--work"):
        ap.add_argument(a, required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--gmsh")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    runs = make_runs(args)
    for name, ranks, kind, viz in runs:
        tvr.check_series(viz)
        check_pvd(name, ranks, kind, viz)
    print("test_viz_reader_simplex: %s" % ("FAIL (%d)" % len(tvr.failures) if tvr.failures
                                           else "PASS"))
    return 1 if tvr.failures else 0


if __name__ == "__main__":
    sys.exit(main())
