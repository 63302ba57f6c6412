#!/usr/bin/env python3
"""Render a field of a blast_gpu visualization series to a PNG with ParaView (offscreen).

    pvbatch tools/pv_density_slice.py RUN PNG [--time T] [--field density] [--normal z]
                                      [--origin X,Y,Z] [--size 1024x768] [--edges auto|on|off]

RUN is a run's output folder (with viz/blast.xdmf), its viz folder or a blast.xdmf. The
series is opened with ParaView's Xdmf3 reader at the dump nearest to --time (default: the
last dump). In 3D the field is shown on a plane slice through --origin (default: the
centre of the mesh) with the given normal (x, y, z or three numbers), inside the outline
of the mesh; in 2D (and 1D) on the mesh itself. In 2D the linear sub-cells are drawn with
their edges (--edges on: also on the slice, where they show how the plane cuts the moved
sub-cells). Vector fields (velocity) are coloured by magnitude; cell fields
(material, rank, zone) per sub-cell. Prints one summary line (time, slice, field range).

Runs under pvbatch (offscreen), `pvpython --force-offscreen-rendering`, or any python3 that
imports paraview.simple. ParaView builds for X only (Debian's paraview package) need an X
server even offscreen: without DISPLAY the script re-runs itself under `xvfb-run -a pvbatch`
when both are on PATH (set BLAST_PV_XVFB=0 to stop that), else it stops with exit code 2.
"""
import argparse
import importlib
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_options import refuse_unknown_options  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="pv_density_slice.py",
                                 description=__doc__.split("\n")[1])
    ap.add_argument("run", help="output folder, its viz folder, or a blast.xdmf")
    ap.add_argument("png", help="PNG to write")
    ap.add_argument("--time", type=float, help="the dump nearest to this time (default: last)")
    ap.add_argument("--field", default="density", help="point or cell field (default density)")
    ap.add_argument("--normal", default="z", help="3D slice normal: x, y, z or NX,NY,NZ")
    ap.add_argument("--origin", help="3D slice origin X,Y,Z (default: centre of the mesh)")
    ap.add_argument("--size", default="1024x768", help="image size WxH (default 1024x768)")
    ap.add_argument("--edges", choices=("auto", "on", "off"), default="auto",
                    help="draw the sub-cell edges (auto: in 2D, not on a 3D slice)")
    refuse_unknown_options(ap, argv)
    a = ap.parse_args(argv)
    try:
        a.width, a.height = (int(v) for v in a.size.lower().split("x"))
        assert a.width >= 16 and a.height >= 16
    except (ValueError, AssertionError):
        ap.error("--size: want WxH (at least 16x16), got %r" % a.size)
    axes = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}
    try:
        a.normal_v = axes[a.normal] if a.normal in axes else \
            tuple(float(v) for v in a.normal.split(","))
        assert len(a.normal_v) == 3 and any(v != 0.0 for v in a.normal_v)
    except (ValueError, AssertionError):
        ap.error("--normal: want x, y, z or three numbers, got %r" % a.normal)
    if a.origin is not None:
        try:
            a.origin_v = tuple(float(v) for v in a.origin.split(","))
            assert len(a.origin_v) == 3
        except (ValueError, AssertionError):
            ap.error("--origin: want X,Y,Z, got %r" % a.origin)
    return a


def find_xdmf(path):
    for cand in (path, os.path.join(path, "blast.xdmf"), os.path.join(path, "viz", "blast.xdmf")):
        if os.path.isfile(cand):
            return os.path.abspath(cand)
    sys.exit("pv_density_slice: no blast.xdmf in or at %s" % path)


def need_x_server():
    """True when this ParaView renders through GLX and there is no display to use."""
    if sys.platform != "linux" or os.environ.get("DISPLAY"):
        return False
    importlib.import_module("vtkmodules.vtkRenderingOpenGL2")  # the OpenGL window classes
    from vtkmodules.vtkRenderingCore import vtkRenderWindow
    return vtkRenderWindow().GetClassName() == "vtkXOpenGLRenderWindow"


def rerun_under_xvfb(args):
    xvfb, pvbatch = shutil.which("xvfb-run"), shutil.which("pvbatch")
    if os.environ.get("BLAST_PV_XVFB") == "0" or os.environ.get("BLAST_PV_UNDER_XVFB") or \
            not xvfb or not pvbatch:
        sys.stderr.write("pv_density_slice: this ParaView renders through X (GLX) and DISPLAY is "
                         "not set; run it under xvfb-run -a -s '-noreset -screen 0 1280x1024x24'"
                         " (Debian: apt-get install xvfb xauth), or use a ParaView built with "
                         "EGL or OSMesa\n")
        sys.exit(2)
    sys.stderr.write("pv_density_slice: no DISPLAY for this GLX ParaView: re-running under "
                     "xvfb-run -a pvbatch\n")
    env = dict(os.environ, BLAST_PV_UNDER_XVFB="1")
    # -noreset: an X server resets when its last client disconnects, and refuses connections
    # meanwhile; something in ParaView's start-up (an strace shows a scan of the X displays
    # :0, :1, ..., like hwloc's) opens and closes the display before the render window does, so
    # without it ParaView often aborts with "bad X server connection" (1 run in 15 here, more
    # often under load). Up to 5 tries all the same, from a random display number (-a goes up
    # from it when taken).
    screen = "-noreset -screen 0 %dx%dx24" % (max(args.width, 640) + 64,
                                              max(args.height, 480) + 64)
    tries = 5
    for attempt in range(tries):
        cmd = [xvfb, "-a", "-n", str(random.randint(100, 30000)), "-s", screen, pvbatch,
               "--no-mpi", os.path.abspath(__file__)] + sys.argv[1:]
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        x_failed = p.returncode != 0 and ("bad X server connection" in p.stderr or
                                          "Xvfb failed to start" in p.stderr)
        if not x_failed or attempt == tries - 1:
            break
        why = [ln for ln in p.stderr.splitlines() if "bad X server" in ln or "Xvfb failed" in ln]
        sys.stderr.write("pv_density_slice: try %d under xvfb-run failed (%s), trying again\n" %
                         (attempt + 1, why[0].strip()[-120:]))
        time.sleep(1.0 + attempt)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)


def main(argv):
    args = parse_args(argv)
    xdmf = find_xdmf(args.run)
    if importlib.util.find_spec("paraview") is None:
        # A python3 without ParaView (run as tools/pv_density_slice.py): pvbatch runs it.
        pvbatch = shutil.which("pvbatch")
        if not pvbatch or os.environ.get("BLAST_PV_UNDER_PVBATCH"):
            sys.exit("pv_density_slice: this python3 (%s) cannot import paraview and no pvbatch "
                     "is on PATH (Debian: apt-get install python3-paraview)" % sys.executable)
        os.environ["BLAST_PV_UNDER_PVBATCH"] = "1"
        os.execv(pvbatch, [pvbatch, "--no-mpi", os.path.abspath(__file__)] + argv)
    if need_x_server():
        rerun_under_xvfb(args)

    from paraview import simple as pv

    reader = pv.Xdmf3ReaderS(registrationName="blast", FileName=[xdmf])
    reader.UpdatePipelineInformation()
    times = reader.TimestepValues
    times = [float(t) for t in times] if isinstance(times, (list, tuple)) or \
        hasattr(times, "__len__") else [float(times)]
    if not times:
        times = [0.0]
    idx = len(times) - 1 if args.time is None else \
        min(range(len(times)), key=lambda i: abs(times[i] - args.time))
    t = times[idx]
    reader.UpdatePipeline(t)

    if args.field in reader.PointData.keys():
        assoc, info = "POINTS", reader.PointData[args.field]
    elif args.field in reader.CellData.keys():
        assoc, info = "CELLS", reader.CellData[args.field]
    else:
        sys.stderr.write("pv_density_slice: no field %r in %s (point fields: %s; cell fields: %s)\n"
                         % (args.field, xdmf, ", ".join(reader.PointData.keys()),
                            ", ".join(reader.CellData.keys())))
        return 2
    vector = info.GetNumberOfComponents() > 1

    b = reader.GetDataInformation().GetBounds()
    ext = [b[1] - b[0], b[3] - b[2], b[5] - b[4]]
    dim = 3 if ext[2] > 0 else (2 if ext[1] > 0 else 1)
    centre = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]

    if dim == 3:
        normal = list(args.normal_v)
        if args.origin:
            origin = list(args.origin_v)
        else:
            # The centre, moved by 1e-6 of the mesh size along the normal: a plane along
            # sub-cell faces would cut the cells on both sides (coincident, degenerate polygons).
            nn = sum(v * v for v in normal) ** 0.5
            origin = [centre[k] + 1e-6 * max(ext) * normal[k] / nn for k in range(3)]
        shown = pv.Slice(registrationName="slice", Input=reader)
        shown.SliceType = "Plane"
        shown.SliceType.Origin = origin
        shown.SliceType.Normal = normal
        if hasattr(shown, "Triangulatetheslice"):
            shown.Triangulatetheslice = 0
        shown.UpdatePipeline(t)
        where = "slice through (%.6g, %.6g, %.6g) normal (%g, %g, %g)" % (tuple(origin) +
                                                                           tuple(normal))
    else:
        shown = reader
        normal = [0.0, 0.0, 1.0]
        where = "%dD mesh" % dim

    ncells = shown.GetDataInformation().GetNumberOfCells()
    if ncells == 0:
        sys.stderr.write("pv_density_slice: the %s cuts no cell of the mesh (bounds %s)\n" %
                         (where, ", ".join("%g" % v for v in b)))
        return 2

    view = pv.CreateView("RenderView")
    view.ViewSize = [args.width, args.height]
    view.ViewTime = t
    view.OrientationAxesVisibility = 1 if dim == 3 else 0
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]

    if dim == 3:
        outline = pv.Show(reader, view)
        outline.SetRepresentationType("Outline")
        pv.ColorBy(outline, None)
        outline.AmbientColor = outline.DiffuseColor = [0.2, 0.2, 0.2]
    disp = pv.Show(shown, view)
    edges = args.edges == "on" or (args.edges == "auto" and dim == 2)
    disp.SetRepresentationType("Surface With Edges" if edges and dim > 1 else "Surface")
    if dim == 1:
        disp.LineWidth = 6.0
    disp.EdgeColor = [0.25, 0.25, 0.25]
    if vector:
        pv.ColorBy(disp, (assoc, args.field, "Magnitude"))
    else:
        pv.ColorBy(disp, (assoc, args.field))
    # The colour range: that of the field on what is shown (the slice, not the whole mesh).
    arrays = shown.PointData if assoc == "POINTS" else shown.CellData
    rng = arrays[args.field].GetRange(-1 if vector else 0)
    lut = pv.GetColorTransferFunction(args.field)
    lut.ApplyPreset("Viridis (matplotlib)", True)
    if vector:
        lut.VectorMode = "Magnitude"
    lut.RescaleTransferFunction(rng[0], rng[1] if rng[1] > rng[0] else rng[0] + 1e-12 *
                                max(1.0, abs(rng[0])))
    lut.AutomaticRescaleRangeMode = "Never"
    disp.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = args.field + (" magnitude" if vector else "")
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.RangeLabelFormat = "%-#.4g"

    label = pv.Text(registrationName="label")
    folder = os.path.dirname(xdmf)
    if os.path.basename(folder) == "viz":
        folder = os.path.dirname(folder)
    label.Text = "%s  t = %.6g (dump %d of %d)\n%s %son the %s" % (
        os.path.basename(folder), t, idx + 1, len(times), args.field,
        "magnitude " if vector else "", where)
    lab = pv.Show(label, view)
    lab.Color = [0.0, 0.0, 0.0]
    lab.FontSize = 14
    lab.WindowLocation = "Upper Left Corner"
    lab.Justification = "Left"

    # Look along -normal at the slice (in 2D and 1D: down the z axis), parallel projection.
    focal = list(shown.GetDataInformation().GetBounds())
    focal = [0.5 * (focal[0] + focal[1]), 0.5 * (focal[2] + focal[3]), 0.5 * (focal[4] + focal[5])]
    nn = sum(v * v for v in normal) ** 0.5
    n = [v / nn for v in normal]
    up = [0.0, 1.0, 0.0] if abs(n[1]) < 0.9 else [0.0, 0.0, 1.0]
    if dim == 3 and abs(n[2]) < 0.9:
        up = [0.0, 0.0, 1.0]
    view.CameraFocalPoint = focal
    view.CameraPosition = [focal[k] + n[k] * 10.0 * max(ext + [1e-30]) for k in range(3)]
    view.CameraViewUp = up
    view.CameraParallelProjection = 1
    view.ResetCamera(False)
    pv.Render(view)
    pv.SaveScreenshot(args.png, view, ImageResolution=[args.width, args.height],
                      TransparentBackground=0)
    # Without this, a GLX ParaView's teardown at sys.exit fails (X error GLXBadContext, exit 1).
    pv.Delete(view)
    del view
    print("pv_density_slice: %s t = %r (dump %d of %d), %s on the %s: %d cells, range "
          "[%.6g, %.6g] -> %s (%dx%d)" % (xdmf, t, idx + 1, len(times), bar.Title, where, ncells,
                                          rng[0], rng[1], args.png, args.width, args.height))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
