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

READERS = (("Xdmf3", vtkXdmf3Reader), ("Xdmf2", vtkXdmfReader))
# VTK cell types: an XDMF Polyline of 2 nodes reads as VTK_POLY_LINE (4) of 2 points.
VTK_CELL = {1: 4, 2: 9, 3: 12}  # VTK_POLY_LINE, VTK_QUAD, VTK_HEXAHEDRON
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
            ref.append(d)
    times = [d["_time"] for d in ref]
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
            X, T, dim = d["coordinates"], d["topology"], d["_dim"]
            nvert, ncell = X.shape[0], T.shape[0]
            if not check(o.GetNumberOfPoints() == nvert and o.GetNumberOfCells() == ncell,
                         "%s: %d points, %d cells; HDF5 %d, %d" %
                         (where, o.GetNumberOfPoints(), o.GetNumberOfCells(), nvert, ncell)):
                continue
            P = vtk_to_numpy(o.GetPoints().GetData())
            check(np.array_equal(P, X), "%s: points differ from /coordinates" % where)
            types = vtk_to_numpy(o.GetCellTypesArray())
            check(np.all(types == VTK_CELL[dim]), "%s: cell types %s in %dD" %
                  (where, np.unique(types), dim))
            cells = o.GetCells()
            conn = vtk_to_numpy(cells.GetConnectivityArray())
            offs = vtk_to_numpy(cells.GetOffsetsArray())
            npc = T.shape[1]
            check(np.array_equal(offs, np.arange(ncell + 1) * npc) and
                  np.array_equal(conn, T.ravel()), "%s: connectivity differs from /topology" %
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
               ts[0] if ts else None, ts[-1] if ts else None, ref[-1]["_dim"], ref[-1]["coordinates"].shape[0], ref[-1]["topology"].shape[0],
               len(pnames), len(cnames), time.time() - t0))


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
