#!/usr/bin/env python3
"""The plot scripts of tools/ (plot_sedov.py, plot_lineout.py, plot_energy.py).

    test_viz_tools.py --tools DIR --dumps SCRATCH --sedov-profile EXE --blast EXE --deck INI
                      --work DIR --mpiexec MPIEXEC

  1. plot_sedov.py's exact Sedov solution (numpy) against the solver's C implementation
     (sedov_profile): energy integral alpha to 1e-12, densities to 1e-10 of the peak, in
     planar, cylindrical and spherical geometry, several gamma;
  2. plot_sedov.py, plot_lineout.py and plot_energy.py write PNGs from the dumps that
     test_viz left (SCRATCH/sedov2d, SCRATCH/sod1d); the shock radius printed by
     plot_sedov.py is the C one; the dump energies at t = 0 are the deposited E0/4;
  3. a real run of blast_gpu on DECK (2 ranks): plot_energy.py reads its progress lines.
     When blast_gpu knows [output] viz_steps, the run writes dumps (t_final = 0.2) and
     plot_sedov.py plots its newest one (density error at the vertices checked loosely).
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", MPLBACKEND="Agg")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240, **kw)
    print("run:  %s\n      exit %d%s" % (" ".join(cmd), p.returncode,
                                         "; " + p.stderr.strip()[-2000:] if p.returncode else ""))
    return p


def png_ok(path, what):
    ok = os.path.isfile(path) and os.path.getsize(path) > 5000
    if ok:
        with open(path, "rb") as f:
            head = f.read(24)
        w, h = struct.unpack(">II", head[16:24])
        ok = head[:8] == b"\x89PNG\r\n\x1a\n" and w >= 300 and h >= 200
    return check(ok, "%s: %s is a PNG" % (what, path))


def sedov_c(exe, dim, gamma, t, n=300):
    out = subprocess.run([exe, str(dim), repr(gamma), "1", repr(t), str(n)], capture_output=True,
                         text=True, check=True).stdout.split()
    alpha, r2 = float(out[0].split(",")[1]), float(out[1].split(",")[1])
    d = np.array([[float(x) for x in line.split(",")] for line in out[2:]])
    return alpha, r2, d[:, 0], d[:, 1]


def main():
    ap = argparse.ArgumentParser()
    for a in ("--tools", "--dumps", "--sedov-profile", "--blast", "--deck", "--work", "--mpiexec"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    py = sys.executable
    tool = lambda name: os.path.join(args.tools, name)

    # 1. The numpy Sedov solution against the C one.
    sys.path.insert(0, args.tools)
    import plot_sedov
    for dim, gamma in ((1, 1.4), (2, 1.4), (3, 1.4), (2, 5.0 / 3.0), (3, 1.2), (1, 3.0)):
        alpha, r2, r, rho = sedov_c(args.sedov_profile, dim, gamma, 0.5)
        S = plot_sedov.SedovExact(dim, gamma, 1.0)
        err = np.max(np.abs(S.density(0.5, r) - rho)) / rho.max()
        check(abs(S.alpha - alpha) <= 1e-12 * alpha and abs(S.shock_radius(0.5) - r2) <= 1e-12 * r2
              and err <= 1e-10, "exact Sedov %dD gamma %.4g: alpha %.15g (C %.15g), density "
              "error %.1e of the peak" % (dim, gamma, S.alpha, alpha, err))

    # 2. The scripts on test_viz's dumps.
    sedov2d, sod1d = os.path.join(args.dumps, "sedov2d"), os.path.join(args.dumps, "sod1d")
    png = os.path.join(args.work, "sedov_testdump.png")
    p = run([py, tool("plot_sedov.py"), sedov2d, "-o", png])
    png_ok(png, "plot_sedov.py on test_viz's dump")
    m = re.search(r"t = ([0-9.eE+-]+), shock radius ([0-9.]+)", p.stdout)
    if check(m is not None, "plot_sedov.py prints the shock radius: %s" % p.stdout.strip()):
        _, r2, _, _ = sedov_c(args.sedov_profile, 2, 1.4, float(m.group(1)), 2)
        check(abs(float(m.group(2)) - r2) <= 1e-6, "shock radius %s (C: %.6f)" % (m.group(2), r2))
    png = os.path.join(args.work, "lineout_sod.png")
    run([py, tool("plot_lineout.py"), sod1d, "--field", "velocity", "--component", "x", "-o", png])
    png_ok(png, "plot_lineout.py, 1D, every dump of the series")
    png = os.path.join(args.work, "lineout_sedov.png")
    run([py, tool("plot_lineout.py"), os.path.join(sedov2d, "viz_000001.h5"), "--field",
         "pressure", "--from", "0,0", "--to", "1,1", "-o", png])
    png_ok(png, "plot_lineout.py, 2D diagonal")
    png = os.path.join(args.work, "lineout_material.png")
    run([py, tool("plot_lineout.py"), sedov2d, "--field", "material", "-o", png])
    png_ok(png, "plot_lineout.py, a cell field")
    png = os.path.join(args.work, "energy_dumps.png")
    p = run([py, tool("plot_energy.py"), sedov2d, "-o", png])
    png_ok(png, "plot_energy.py from dumps")
    m = re.search(r"total energy ([0-9.eE+-]+) \.\. ([0-9.eE+-]+)", p.stdout)
    check(m is not None and abs(float(m.group(1)) - 0.25) <= 1e-3 * 0.25
          and abs(float(m.group(2)) - 0.25) <= 0.1 * 0.25,
          "dump energies (E0/4 = 0.25 deposited): %s" % (m.group(0) if m else p.stdout))

    # 3. A real run.
    helptext = run([args.blast, "--help"]).stdout
    viz = "viz_steps" in helptext
    out = os.path.join(args.work, "run")
    cmd = [args.mpiexec, "-n", "2", "--oversubscribe", args.blast, args.deck, "output.print_every=5",
           "output.dir=" + out, "output.overwrite=true"]
    cmd += ["time.t_final=0.2", "output.viz_steps=100"] if viz else ["time.t_final=0.05"]
    p = run(cmd)
    check(p.returncode == 0, "blast_gpu run")
    log = os.path.join(args.work, "run.log")
    with open(log, "w") as f:
        f.write(p.stdout)
    png = os.path.join(args.work, "energy_log.png")
    p = run([py, tool("plot_energy.py"), log, "-o", png])
    png_ok(png, "plot_energy.py from the run's progress lines")
    check(re.search(r"\d+ progress lines", p.stdout) is not None, "progress lines read")
    if not viz:
        print("note: blast_gpu has no [output] viz_steps yet: the real-run Sedov plot is skipped")
    else:
        series = [os.path.join(d, "blast.xdmf") for d, _, files in os.walk(out)
                  if "blast.xdmf" in files]
        if check(len(series) == 1, "the run wrote one time series: %s" % series):
            png = os.path.join(args.work, "sedov_run.png")
            p = run([py, tool("plot_sedov.py"), series[0], "-o", png])
            png_ok(png, "plot_sedov.py on the run's newest dump")
            m = re.search(r"density error at \d+ vertices: mean ([0-9.]+)", p.stdout)
            check(m is not None and float(m.group(1)) < 0.5, "mean density error: %s" %
                  p.stdout.strip())
    print("test_viz_tools: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
