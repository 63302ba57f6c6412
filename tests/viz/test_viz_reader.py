#!/usr/bin/env python3
"""The visualization time series as VTK's XDMF readers (those of ParaView) read it.

    test_viz_reader.py [--blast EXE --mpiexec MPIEXEC --inputs DIR --work DIR] [VIZ_DIR ...]

With --blast, first runs blast_gpu (in WORK) to make series with several dumps:
  sedov2d_r2   inputs/sedov2d.ini, 4x4 zones, 2 ranks, a dump every 4 steps to t = 0.3
  sedov3d_r2   inputs/sedov3d.ini, 4x4x4 zones, 2 ranks, a dump every 4 steps to t = 0.1
  sedov2d_r1   inputs/sedov2d.ini, 4x4 zones, 1 rank, viz_dt = 0.05, viz_refine = 3, to t = 0.2
each must leave at least 5 dumps. The VIZ_DIRs (e.g. those test_viz leaves: 1D, 2D, 3D
on 3 ranks) are checked too.

Each series <dir>/blast.xdmf is opened with vtkXdmf3Reader (ParaView's "Xdmf3 Reader")
and vtkXdmfReader (the XDMF 2 "Xdmf Reader"), and compared with the HDF5 files of the
folder (viz_NNNNNN.h5, read with h5py, in dump order), which are the reference:
  * the reader's TIME_STEPS are exactly the /time attributes of the dumps (as many steps
    as files, same values bit for bit);
  * at each time step (UpdateTimeStep), the output is a vtkUnstructuredGrid whose
    DATA_TIME_STEP is that time, with as many points as /coordinates rows and cells as
    /topology rows; the points equal /coordinates, every cell has the VTK type of the
    dimension (a 2-point poly line, quad, hexahedron) and the connectivity equals /topology;
  * the point data arrays are named exactly as the vertex datasets, the cell data
    arrays as the cell datasets; each has the dataset's number of components and kind
    (float/int), and all of its values equal the dataset's (first, last, min and max are
    printed).

Where the folder has blast.pvd (the VTK Lagrange-cell series, [output] viz_format = vtu
or both), it is checked too, against the same HDF5 files: its DataSet timesteps are the
/time attributes bit for bit; each viz_NNNNNN.pvtu read with vtkXMLPUnstructuredGridReader
(every rank's piece) has one cell per zone, each VTK_LAGRANGE_CURVE, _QUADRILATERAL or
_HEXAHEDRON (68, 70, 72) with (k+1)^dim points; the cell arrays equal those of the zone's
sub-cells; the corner points equal the zone's corner vertices in /coordinates; with
refine = k, every point (found from VTK's parametric coordinates of the cell's nodes) and
every point array equal the zone's vertex in the HDF5 file; and at the last dump, the
Lagrange cell evaluated (EvaluateLocation) at the reference point of every sub-cell vertex
i/refine equals /coordinates there to 1e-12 of the mesh size: the cell is the curved zone.
If ParaView's Python (paraview.simple) is there, OpenDataFile(blast.pvd) has the same
time steps.

A mesh of triangles and quadrilaterals (/topology 1D: XDMF's Mixed list, each sub-cell its
type number 4 or 5 and its vertices) gets them cell by cell: each sub-cell VTK_TRIANGLE or
VTK_QUAD, each zone's Lagrange cell of its own type (69 or 70) and nodes.
Triangles and tetrahedra (/topology with dim + 1 columns) get the same checks: XDMF
Triangle / Tetrahedron cells (VTK_TRIANGLE 5, VTK_TETRA 10), Lagrange cells of type 69 / 71
with the (k+1)(k+2)/2 or (k+1)(k+2)(k+3)/6 lattice nodes, the HDF5 vertices of a zone in
lattice order (fem/geom.h) matched through VTK's parametric coordinates.
test_viz_reader_simplex.py runs them.
"""
import argparse
import glob
import os
import subprocess
import sys
import time

import h5py
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as SDDP
from vtkmodules.vtkIOXdmf2 import vtkXdmfReader
from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader
from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader
from vtkmodules.vtkCommonCore import reference
import xml.etree.ElementTree as ET

READERS = (("Xdmf3", vtkXdmf3Reader), ("Xdmf2", vtkXdmfReader))
# VTK cell types: an XDMF Polyline of 2 nodes reads as VTK_POLY_LINE (4) of 2 points.
VTK_CELL = {1: 4, 2: 9, 3: 12}  # VTK_POLY_LINE, VTK_QUAD, VTK_HEXAHEDRON
VTK_LAGRANGE = {1: 68, 2: 70, 3: 72}  # VTK_LAGRANGE_CURVE, _QUADRILATERAL, _HEXAHEDRON
VTK_SIMPLEX = {2: 5, 3: 10}  # triangles, tetrahedra: VTK_TRIANGLE, VTK_TETRA
VTK_LAGRANGE_SIMPLEX = {2: 69, 3: 71}  # VTK_LAGRANGE_TRIANGLE, _TETRAHEDRON
XDMF_MIXED = {4: 3, 5: 4}  # XDMF Mixed topology: type number -> corners (Triangle, Quadrilateral)
failures = []


def check(cond, what):
    if not cond:
        print("FAIL  " + what)
        failures.append(what)
    return cond


def run(cmd):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    print("run:  %s\n      exit %d%s" % (" ".join(cmd), p.returncode,
                                         "; " + p.stderr.strip()[-2000:] if p.returncode else ""))
    return p


def make_runs(args):
    """The blast_gpu runs; returns their viz folders."""
    runs = [("sedov2d_r2", 2, "sedov2d.ini", ["time.t_final=0.3", "output.viz_steps=4"]),
            ("sedov3d_r2", 2, "sedov3d.ini", ["time.t_final=0.1", "output.viz_steps=4"]),
            ("sedov2d_r1", 1, "sedov2d.ini", ["time.t_final=0.2", "output.viz_dt=0.05",
                                              "output.viz_refine=3"])]
    folders = []
    for name, ranks, deck, extra in runs:
        out = os.path.join(args.work, name)
        cmd = [args.mpiexec, "-n", str(ranks), "--oversubscribe", args.blast,
               os.path.join(args.inputs, deck), "mesh.refine_serial=1", "output.print_every=1000",
               "output.dir=" + out, "output.overwrite=true"] + extra
        p = run(cmd)
        viz = os.path.join(out, "viz")
        n = len(glob.glob(os.path.join(viz, "viz_*.h5")))
        if check(p.returncode == 0 and n >= 5, "%s: blast_gpu exit %d, %d dumps (want >= 5)" %
                 (name, p.returncode, n)):
            folders.append(viz)
    return folders


def describe(v):
    return "first %r last %r min %r max %r" % (v.flat[0].item(), v.flat[-1].item(),
                                               v.min().item(), v.max().item())


def lattice(dim, p, simplex):
    """The integer points of a zone's lattice of order p in blast_gpu's order (fem/geom.h:
    x fastest; a simplex's points have sum <= p), and each point's index."""
    pts = []
    for c in range(p + 1 if dim > 2 else 1):
        for b in range(p + 1 if dim > 1 else 1):
            for a in range(p + 1):
                if not simplex or a + b + c <= p:
                    pts.append((a, b, c)[:dim])
    return pts, {q: n for n, q in enumerate(pts)}


def cells_of(d):
    """The sub-cells of a dump: the corners of each and the flat connectivity. /topology is
    [ncell][ncv], or on a mesh of triangles and quadrilaterals the 1D list of XDMF's Mixed
    topology (each cell: its type number, 4 triangle or 5 quadrilateral, then its vertices)."""
    T = d["topology"]
    if T.ndim == 2:
        return np.full(T.shape[0], T.shape[1]), T.ravel()
    ncv, conn, i = [], [], 0
    while i < T.size:
        n = XDMF_MIXED.get(int(T[i]))
        if not check(n is not None, "/topology: type number %d at %d" % (T[i], i)):
            break
        ncv.append(n)
        conn.extend(T[i + 1:i + 1 + n].tolist())
        i += 1 + n
    return np.array(ncv, dtype=np.int64), np.array(conn, dtype=T.dtype)


def compare_array(where, name, arr, ref):
    """A VTK data array against an HDF5 dataset's values."""
    if not check(arr is not None, "%s: the reader has no %s" % (where, name)):
        return
    a = vtk_to_numpy(arr)
    ncomp = 1 if ref.ndim == 1 else ref.shape[1]
    if not check(arr.GetNumberOfComponents() == ncomp and a.shape[0] == ref.shape[0],
                 "%s: %s has %d tuples of %d components, HDF5 %s" %
                 (where, name, a.shape[0], arr.GetNumberOfComponents(), ref.shape)):
        return
    a = a.reshape(ref.shape)
    check(a.dtype.kind == ref.dtype.kind, "%s: %s is %s, HDF5 %s" % (where, name, a.dtype,
                                                                     ref.dtype))
    diff = np.flatnonzero((a != ref).reshape(ref.shape[0], -1).any(axis=1))
    check(diff.size == 0, "%s: %s differs at %d of %d tuples (first at %d: reader %s, HDF5 %s)" %
          (where, name, diff.size, ref.shape[0], diff[0] if diff.size else -1,
           a[diff[0]] if diff.size else "", ref[diff[0]] if diff.size else ""))
    return a


def check_series(folder):
    xdmf = os.path.join(folder, "blast.xdmf")
    dumps = sorted(glob.glob(os.path.join(folder, "viz_*.h5")))
    if not check(os.path.isfile(xdmf) and dumps, "%s: blast.xdmf and dumps" % folder):
        return
    ref = []
    for path in dumps:
        with h5py.File(path, "r") as f:
            d = {k: f[k][...] for k in f.keys()}
            d["_time"] = float(f.attrs["time"])
            d["_dim"] = int(f.attrs["dim"])
            d["_k"] = int(f.attrs["order_kinematic"])
            d["_refine"] = int(f.attrs["refine"])
            d["_zones"] = int(f.attrs["zones_global"])
            ref.append(d)
    times = [d["_time"] for d in ref]
    check_vtu(folder, ref, dumps)
    for rname, cls in READERS:
        t0, nfail = time.time(), len(failures)
        r = cls()
        r.SetFileName(xdmf)
        r.UpdateInformation()
        ts = r.GetOutputInformation(0).Get(SDDP.TIME_STEPS())
        ts = list(ts) if ts is not None else []
        if not check(ts == times, "%s [%s]: time steps %s, HDF5 /time attributes %s" %
                     (folder, rname, ts, times)):
            if len(ts) != len(times):
                continue
        pnames, cnames = set(), set()
        for i, (t, d) in enumerate(zip(times, ref)):
            where = "%s [%s] %s (t = %r)" % (folder, rname, os.path.basename(dumps[i]), t)
            r.UpdateTimeStep(t)
            o = r.GetOutputDataObject(0)
            if not check(o is not None and o.IsA("vtkUnstructuredGrid"), "%s: output %s" %
                         (where, o.GetClassName() if o is not None else None)):
                continue
            tout = o.GetInformation().Get(o.DATA_TIME_STEP())
            check(tout == t, "%s: DATA_TIME_STEP %r" % (where, tout))
            X, dim = d["coordinates"], d["_dim"]
            ncv, conn_ref = cells_of(d)
            nvert, ncell = X.shape[0], ncv.size
            if not check(o.GetNumberOfPoints() == nvert and o.GetNumberOfCells() == ncell,
                         "%s: %d points, %d cells; HDF5 %d, %d" %
                         (where, o.GetNumberOfPoints(), o.GetNumberOfCells(), nvert, ncell)):
                continue
            P = vtk_to_numpy(o.GetPoints().GetData())
            check(np.array_equal(P, X), "%s: points differ from /coordinates" % where)
            types = vtk_to_numpy(o.GetCellTypesArray())
            want = np.where((ncv == dim + 1) & (dim > 1), VTK_SIMPLEX.get(dim, 0), VTK_CELL[dim])
            check(np.array_equal(types, want), "%s: cell types %s in %dD, want %s" %
                  (where, np.unique(types), dim, np.unique(want)))
            cells = o.GetCells()
            conn = vtk_to_numpy(cells.GetConnectivityArray())
            offs = vtk_to_numpy(cells.GetOffsetsArray())
            check(np.array_equal(offs, np.concatenate(([0], np.cumsum(ncv)))) and
                  np.array_equal(conn, conn_ref), "%s: connectivity differs from /topology" %
                  where)
            pd, cd = o.GetPointData(), o.GetCellData()
            pnames = {pd.GetArrayName(k) for k in range(pd.GetNumberOfArrays())}
            cnames = {cd.GetArrayName(k) for k in range(cd.GetNumberOfArrays())}
            want_p = {k for k, v in d.items() if not k.startswith("_") and k != "coordinates"
                      and v.shape[0] == nvert}
            want_c = {k for k, v in d.items() if not k.startswith("_") and k != "topology"
                      and v.shape[0] == ncell and k not in want_p}
            check(pnames == want_p, "%s: point arrays %s, HDF5 vertex datasets %s" %
                  (where, sorted(pnames), sorted(want_p)))
            check(cnames == want_c, "%s: cell arrays %s, HDF5 cell datasets %s" %
                  (where, sorted(cnames), sorted(want_c)))
            for name in sorted(want_p):
                a = compare_array(where, "point array " + name, pd.GetArray(name), d[name])
                if a is not None and i == len(ref) - 1:
                    print("      %s %s: %s" % (rname, name, describe(a)))
            for name in sorted(want_c):
                a = compare_array(where, "cell array " + name, cd.GetArray(name), d[name])
                if a is not None and i == len(ref) - 1:
                    print("      %s %s: %s" % (rname, name, describe(a)))
        print("%s %s [%s]: %d time steps (t = %r .. %r), %dD, %d points, %d cells, "
              "%d point + %d cell arrays, %.2f s" %
              ("ok   " if len(failures) == nfail else "FAIL ", folder, rname, len(ts),
               ts[0] if ts else None, ts[-1] if ts else None, ref[-1]["_dim"], ref[-1]["coordinates"].shape[0], ref[-1]["zone"].shape[0],
               len(pnames), len(cnames), time.time() - t0))


def check_vtu(folder, ref, dumps):
    """The blast.pvd series against the HDF5 dumps (ref: their datasets and attributes)."""
    pvd = os.path.join(folder, "blast.pvd")
    if not os.path.isfile(pvd):
        print("      %s: no blast.pvd (XDMF only)" % folder)
        return
    t0, nfail = time.time(), len(failures)
    sets = ET.parse(pvd).getroot().find("Collection").findall("DataSet")
    times = [float(e.get("timestep")) for e in sets]
    check(times == [d["_time"] for d in ref], "%s: blast.pvd timesteps %s, HDF5 /time %s" %
          (folder, times, [d["_time"] for d in ref]))
    try:
        from paraview import simple
        src = simple.OpenDataFile(pvd)
        check(list(src.TimestepValues) == times, "%s: ParaView's time steps %s, blast.pvd %s" %
              (folder, list(src.TimestepValues), times))
        simple.Delete(src)
        print("      %s: ParaView's OpenDataFile: %d time steps" % (pvd, len(times)))
    except ImportError:
        print("      %s: no paraview.simple, ParaView's reader not tried" % pvd)
    for i, (e, d) in enumerate(zip(sets, ref)):
        where = "%s %s" % (folder, e.get("file"))
        r = vtkXMLPUnstructuredGridReader()
        r.SetFileName(os.path.join(folder, e.get("file")))
        r.Update()
        o = r.GetOutput()
        dim, k, refine, nz = d["_dim"], d["_k"], d["_refine"], d["_zones"]
        # each zone's geometry from its sub-cells (a mesh may mix triangles and quadrilaterals)
        nsub = refine ** dim
        zsimplex = (cells_of(d)[0][::nsub] == dim + 1) & (dim > 1)
        geo = {sx: (lattice(dim, k, sx), lattice(dim, refine, sx)) for sx in (False, True)}
        nnz = np.array([len(geo[sx][0][0]) for sx in zsimplex], dtype=np.int64)
        voff = np.concatenate(([0], np.cumsum([len(geo[sx][1][0]) for sx in zsimplex])))
        X = d["coordinates"]
        if not check(o.GetNumberOfCells() == nz and zsimplex.size == nz and
                     o.GetNumberOfPoints() == nnz.sum(),
                     "%s: %d cells, %d points; want %d zones of %d nodes" %
                     (where, o.GetNumberOfCells(), o.GetNumberOfPoints(), nz, nnz.sum())):
            continue
        types = vtk_to_numpy(o.GetCellTypesArray())
        want = np.where(zsimplex, VTK_LAGRANGE_SIMPLEX.get(dim, 0), VTK_LAGRANGE[dim])
        check(np.array_equal(types, want), "%s: cell types %s, want %s" %
              (where, np.unique(types), np.unique(want)))
        cd = o.GetCellData()
        for name in ("material", "attribute", "rank", "zone"):
            a = vtk_to_numpy(cd.GetArray(name)) if cd.GetArray(name) else None
            if check(a is not None, "%s: no cell array %s" % (where, name)):
                check(np.array_equal(a, d[name][::nsub]) and a.dtype.kind == d[name].dtype.kind,
                      "%s: cell array %s differs from the zones' sub-cells" % (where, name))
        P = vtk_to_numpy(o.GetPoints().GetData())
        pd = o.GetPointData()
        size = np.abs(X).max() + 1.0
        bad_corner = bad_node = 0
        err_eval = 0.0
        for c in range(nz):
            simplex = zsimplex[c]
            (nodes, _), (subv, subidx) = geo[simplex]
            nn = len(nodes)
            cell = o.GetCell(c)
            if cell.GetNumberOfPoints() != nn:
                check(False, "%s: cell %d has %d points" % (where, c, cell.GetNumberOfPoints()))
                break
            pc = cell.GetParametricCoords()
            ids = [cell.GetPointId(v) for v in range(nn)]
            for v in range(nn):
                idx = tuple(int(round(pc[3 * v + g] * k)) for g in range(dim))
                if simplex:
                    corner = sum(idx) in (0, k) and sum(j > 0 for j in idx) <= 1
                else:
                    corner = all(j in (0, k) for j in idx)
                if corner:  # the zone's corner vertex among the sub-cells' (refine)
                    h = voff[c] + subidx[tuple(j // k * refine for j in idx)]
                    bad_corner += not np.array_equal(P[ids[v]], X[h])
                if refine == k:
                    h = voff[c] + subidx[idx]
                    ok = np.array_equal(P[ids[v]], X[h])
                    for name in ("density", "velocity", "specific_internal_energy", "pressure",
                                 "sound_speed"):
                        a = pd.GetArray(name)
                        ok = ok and a is not None and np.array_equal(
                            np.array(a.GetTuple(ids[v])), np.atleast_1d(d[name][h]))
                    bad_node += not ok
            if i == len(sets) - 1:
                w = [0.0] * nn
                for hv, q in enumerate(subv):
                    xi = [j / refine for j in q]
                    got = [0.0, 0.0, 0.0]
                    cell.EvaluateLocation(reference(0), xi + [0.0] * (3 - dim), got, w)
                    err_eval = max(err_eval, np.abs(np.array(got) - X[voff[c] + hv]).max() / size)
        check(bad_corner == 0, "%s: %d zone corners differ from /coordinates" % (where, bad_corner))
        check(bad_node == 0, "%s: %d nodes (points or point arrays) differ from the HDF5 vertices"
              % (where, bad_node))
        check(err_eval < 1e-12, "%s: the Lagrange cells at the sub-cell vertices' reference "
              "points differ from /coordinates by %.3g of the mesh size" % (where, err_eval))
    print("%s %s [pvd + pvtu]: %d dumps, %dD, k = %d, refine %d, %d zones, EvaluateLocation "
          "err %.2g, %.2f s" % ("ok   " if len(failures) == nfail else "FAIL ", folder, len(sets),
                                ref[-1]["_dim"], ref[-1]["_k"], ref[-1]["_refine"],
                                ref[-1]["_zones"], err_eval, time.time() - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blast")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--inputs")
    ap.add_argument("--work")
    ap.add_argument("folders", nargs="*")
    args = ap.parse_args()
    folders = list(args.folders)
    if args.blast:
        if not (args.inputs and args.work):
            ap.error("--blast needs --inputs and --work")
        os.makedirs(args.work, exist_ok=True)
        folders = make_runs(args) + folders
    check(len(folders) > 0, "series to check")
    for folder in folders:
        check_series(folder)
    print("test_viz_reader: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
