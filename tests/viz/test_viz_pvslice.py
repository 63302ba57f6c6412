#!/usr/bin/env python3
"""tools/pv_density_slice.py renders the series to PNGs (ParaView, offscreen).

    test_viz_pvslice.py --launcher PVBATCH --script tools/pv_density_slice.py --work DIR VIZ_DIR...

VIZ_DIRs: test_viz's 2D and 3D series (3 ranks, 3 materials; dumps at t = 0 and at the
end). The script runs as `PVBATCH script ...` in an environment without DISPLAY, so a GLX
ParaView (Debian's) takes the script's own path through xvfb-run. Checks:
  * 2D, density, last dump, 640x480: exit 0, the summary line names the 2D mesh and the
    last dump; the PNG (read with VTK's PNG reader) is 640x480, 15% to 90% of it is not
    the white background, and the central window (where the mesh is) has more than 20 colours;
  * 3D, density, slice normal z, last dump, 800x600: the same on the slice (normal z);
  * 3D, pressure, slice normal x, --time 0.001 (nearest: the dump at t = 0), and cell field
    rank with a slanted normal: exit 0, the requested size, the dump picked, not blank;
  * a field that does not exist: exit 2 and a message that lists the fields.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(args, extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    cmd = [args.launcher, args.script] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    notes = [ln for ln in p.stderr.splitlines() if ln.startswith("pv_density_slice:")]
    print("run:  %s\n      exit %d\n      %s" % (" ".join(cmd), p.returncode, "\n      ".join(
        [ln.strip() for ln in p.stdout.splitlines()] + notes +
        ([p.stderr.strip()[-3000:]] if p.returncode else []))))
    return p


def png_check(path, w, h, what, min_colours=None):
    if not check(os.path.isfile(path), "%s: %s written" % (what, path)):
        return
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    im = r.GetOutput()
    nx, ny, _ = im.GetDimensions()
    if not check((nx, ny) == (w, h), "%s: %dx%d, asked for %dx%d" % (what, nx, ny, w, h)):
        return
    a = vtk_to_numpy(im.GetPointData().GetScalars())[:, :3].reshape(ny, nx, 3)
    bg = np.all(a == 255, axis=2)
    cover = 1.0 - bg.mean()
    check(0.15 <= cover <= 0.9, "%s: %.0f%% of the image is not the white background "
          "(want 15%% to 90%%)" % (what, 100 * cover))
    if min_colours is not None:
        c = a[ny // 4:3 * ny // 4, nx // 4:nx // 2].reshape(-1, 3)
        n = len(np.unique(c[:, 0].astype(np.int64) << 16 | c[:, 1].astype(np.int64) << 8 |
                          c[:, 2]))
        check(n > min_colours, "%s: %d colours in the centre-left window (want > %d)" %
              (what, n, min_colours))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("folders", nargs=2, metavar="VIZ_DIR", help="the 2D and the 3D series")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    d2, d3 = args.folders
    png = lambda name: os.path.join(args.work, name)  # noqa: E731

    p = run(args, [d2, png("sedov2d.png"), "--size", "640x480"])
    check(p.returncode == 0 and re.search(r"dump 2 of 2\), density on the 2D mesh", p.stdout),
          "2D: exit 0, last dump, density on the mesh")
    png_check(png("sedov2d.png"), 640, 480, "2D density", min_colours=20)

    p = run(args, [os.path.join(d3, "blast.xdmf"), png("sedov3d_z.png"), "--size", "800x600"])
    check(p.returncode == 0 and re.search(r"dump 2 of 2\), density on the slice .* normal "
                                          r"\(0, 0, 1\): \d+ cells", p.stdout),
          "3D: exit 0, last dump, density on a z slice")
    png_check(png("sedov3d_z.png"), 800, 600, "3D density slice", min_colours=20)

    p = run(args, [d3, png("sedov3d_x.png"), "--normal", "x", "--time", "0.001", "--field",
                   "pressure", "--size", "500x400"])
    check(p.returncode == 0 and re.search(r"t = 0\.0 \(dump 1 of 2\), pressure on the slice .* "
                                          r"normal \(1, 0, 0\)", p.stdout),
          "3D: --time 0.001 picks the dump at t = 0, pressure on an x slice")
    png_check(png("sedov3d_x.png"), 500, 400, "3D pressure slice at t = 0")

    p = run(args, [d3, png("sedov3d_rank.png"), "--normal", "1,1,0", "--field", "rank",
                   "--edges", "on", "--size", "400x400"])
    check(p.returncode == 0 and "rank on the slice" in p.stdout, "3D: cell field rank, slanted")
    png_check(png("sedov3d_rank.png"), 400, 400, "3D rank slice")

    p = run(args, [d2, png("nosuch.png"), "--field", "nosuch"])
    check(p.returncode == 2 and "no field 'nosuch'" in p.stderr and "density" in p.stderr
          and not os.path.exists(png("nosuch.png")), "an unknown field: exit 2, fields listed")

    print("test_viz_pvslice: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
