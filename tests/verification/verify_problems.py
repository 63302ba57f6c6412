#!/usr/bin/env python3
"""Verification of the problem decks of inputs/ against their exact solutions
(docs/verification.md: Noh, water-air shock tube, Saltzman piston).

Each subcommand runs blast_gpu on a shipped deck with a visualization dump of the final
state, reads the dump (h5py, numpy), compares it with the exact solution of exact.py
(written from the physics, never from a run) and prints one PASS/FAIL line per check;
exit 1 if any failed.

  noh       --dim 2|3 --refine 2,3,4   density L1 error decreasing with refinement
  water_air [--case sod]               plateau pressure and velocity, wave positions
  saltzman                             post-shock density, shock position, no tangle

Common options as verify.py: --blast EXE, --inputs DIR, --work DIR, and --threads N (OpenMP
threads of each run); extra section.key=value overrides after the subcommand's options.
"""
import argparse
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import exact  # noqa: E402
import verify as V  # noqa: E402
from verify import check  # noqa: E402

QUIET = "output.print_every=1000000"
ONE_DUMP = "output.viz_steps=100000000"  # the initial and the final state only


def modules():
    try:
        import h5py
        import numpy
    except ImportError:
        sys.exit("verify_problems.py needs numpy and h5py (python3-numpy, python3-h5py)")
    return h5py, numpy


def final_dump(run):
    """The newest dump of a run as a dict of numpy arrays and its time."""
    h5py, np = modules()
    viz = os.path.join(run.outdir, "viz")
    names = sorted(f for f in os.listdir(viz) if f.startswith("viz_") and f.endswith(".h5"))
    with h5py.File(os.path.join(viz, names[-1]), "r") as f:
        d = {k: np.array(f[k]) for k in ("coordinates", "topology", "density", "pressure",
                                          "velocity")}
        d["time"] = float(f.attrs["time"])
        d["dim"] = int(f.attrs["dim"])
    return d


def cell_measures(d):
    """Length, area or volume of every linear sub-cell (VTK vertex order)."""
    _, np = modules()
    x, top, dim = d["coordinates"], d["topology"], d["dim"]
    if dim == 1:
        return np.abs(x[top[:, 1], 0] - x[top[:, 0], 0])
    if dim == 2:
        px, py = x[top, 0], x[top, 1]  # [ncell][4], counter-clockwise
        return 0.5 * np.sum(px * np.roll(py, -1, axis=1) - np.roll(px, -1, axis=1) * py, axis=1)
    vol = np.zeros(len(top))
    for a, b, c in ((1, 2, 6), (2, 3, 6), (3, 7, 6), (7, 4, 6), (4, 5, 6), (5, 1, 6)):
        p0 = x[top[:, 0]]
        vol += np.einsum("ij,ij->i", x[top[:, a]] - p0,
                         np.cross(x[top[:, b]] - p0, x[top[:, c]] - p0)) / 6.0
    return vol


def l1_error(d, exact_at):
    """Integral over the current mesh of |rho_h - rho_exact|: each sub-cell's measure times
    the mean of the difference over its vertices; also the mesh's measure."""
    _, np = modules()
    diff = np.abs(d["density"] - exact_at(d["coordinates"]))
    m = cell_measures(d)
    return float(np.sum(m * diff[d["topology"]].mean(axis=1))), float(np.sum(m)), m


# ---------------------------------------------------------------------------------------
# Noh

def cmd_noh(args):
    _, np = modules()
    dim = args.dim
    deck = V.deck_path(args, "noh%dd" % dim)
    rho_post = 4.0 ** dim
    errs, hs = [], []
    for lev in args.refine:
        n = 2 * 2 ** lev
        run = V.Run(args, deck, os.path.join(args.work, "refine%d" % lev),
                    ["mesh.refine_serial=%d" % lev, QUIET, ONE_DUMP,
                     "output.viz_refine=%d" % args.viz_refine] + args.set, threads=args.threads)
        if not run.ok():
            return
        d = final_dump(run)
        t = d["time"]
        check(abs(t - run.summary["t"]) <= 1e-12, "the final dump is at t = %.17g" % t)

        def rho_exact(x):
            r = np.sqrt(np.sum(x * x, axis=1))
            return np.where(r < t / 3.0, rho_post, (1.0 + t / np.maximum(r, 1e-12)) ** (dim - 1))
        err, meas, m = l1_error(d, rho_exact)
        check(np.all(m > 0), "%d^%d zones: every sub-cell of the final mesh has positive measure "
              "(smallest %.3e)" % (n, dim, m.min()))
        # The shocked region (rho above the middle of the jump 4^(dim-1) -> 4^dim) as an
        # equivalent quarter disc / octant of a ball: its radius against t/3.
        mid = 0.5 * (rho_post + rho_post / 4.0)
        hot = np.sum(m * (d["density"][d["topology"]].mean(axis=1) > mid))
        rs = math.sqrt(4.0 * hot / math.pi) if dim == 2 else (6.0 * hot / math.pi) ** (1.0 / 3.0)
        peak = float(d["density"].max())
        print("info  %d^%d zones: steps %d, t = %.6g, density L1 error %.6e over a mesh of "
              "measure %.6f; peak density %.4g (exact %g); shock radius %.4f (exact %.4f); "
              "wall %.1f s" % (n, dim, run.summary["steps"], t, err, meas, peak, rho_post, rs,
                               t / 3.0, run.wall))
        for k, v in sorted(run.summary.items()):
            if "error" in k and isinstance(v, float):
                print("info  summary.json %s = %.6e" % (k, v))
        if dim == 3:
            check(peak < 80.0, "%d^3 zones: peak density %.4g below 80" % (n, peak))
        errs.append(err)
        hs.append(1.0 / n)
    for i in range(1, len(errs)):
        rate = math.log(errs[i - 1] / errs[i]) / math.log(hs[i - 1] / hs[i])
        check(errs[i] < errs[i - 1], "density L1 error %d -> %d zones per direction: %.6e -> "
              "%.6e (observed order %.3f)" % (round(1 / hs[i - 1]), round(1 / hs[i]), errs[i - 1],
                                               errs[i], rate))


# ---------------------------------------------------------------------------------------
# Water-air shock tube

def crossing(x, f, level, from_right, limit=None):
    """Where the piecewise linear profile (x sorted) first crosses `level`, scanning from the
    left (from_right False: the first value below) or from the right (the first above),
    optionally only where x < limit (from the right) / x > limit (from the left)."""
    idx = range(len(x) - 1, -1, -1) if from_right else range(len(x))
    prev = None
    for i in idx:
        if limit is not None and ((from_right and x[i] >= limit) or (not from_right and x[i] <= limit)):
            continue
        hit = f[i] > level if from_right else f[i] < level
        if hit:
            if prev is None or f[prev] == f[i]:
                return x[i]
            w = (level - f[i]) / (f[prev] - f[i])
            return x[i] + w * (x[prev] - x[i])
        prev = i
    return None


def exact_crossing(fn, level, a, b):
    """Bisection for fn(x) = level on [a, b] (fn monotone there)."""
    fa = fn(a) - level
    for _ in range(200):
        m = 0.5 * (a + b)
        fm = fn(m) - level
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


# Shock tubes with a rarefaction to the left and a shock to the right: deck, left and
# right states, interface, zones of the deck's mesh.
TUBES = {
    "water_air": ("water_air1d", exact.Side(1000.0, 0.0, 1.0e9, 4.4, 6.0e8),
                  exact.Side(50.0, 0.0, 1.0e5, 1.4), 0.7, 400),
    # The built-in Sod problem (hydro/problems: density and pressure 1 | 0.1, gamma 1.4),
    # run 5's deck: 64 zones. The same checks on a problem every build has.
    "sod": ("sod1d", exact.Side(1.0, 0.0, 1.0, 1.4), exact.Side(0.1, 0.0, 0.1, 1.4), 0.5, 64),
}


def cmd_water_air(args):
    _, np = modules()
    deck, water, air, x0, zones = TUBES[args.case]
    h = 1.0 / zones
    rs = exact.RiemannStiffened(water, air, x0)
    w = rs.waves()
    run = V.Run(args, V.deck_path(args, deck), os.path.join(args.work, "run"),
                [QUIET, ONE_DUMP, "output.viz_refine=%d" % args.viz_refine] + args.set)
    if not run.ok():
        return
    d = final_dump(run)
    t = d["time"]
    x = d["coordinates"][:, 0]
    order = np.argsort(x, kind="stable")
    x, rho, p, u = x[order], d["density"][order], d["pressure"][order], d["velocity"][order, 0]
    pos = {k: x0 + t * v for k, v in (("head", w["left"][0]), ("tail", w["left"][1]),
                                      ("contact", w["contact"]), ("shock", w["right"][0]))}
    print("info  exact (t = %.6g): p* = %.10g, u* = %.10g, rho*L = %.10g, rho*R = %.10g; "
          "rarefaction head %.5f, tail %.5f, contact %.5f, shock %.5f; %d steps, wall %.1f s"
          % (t, rs.p_star, rs.u_star, rs.rho_star_L, rs.rho_star_R, pos["head"], pos["tail"],
             pos["contact"], pos["shock"], run.summary["steps"], run.wall))
    check(pos["head"] > 0.0 and pos["shock"] < 1.0, "no wave has reached a wall (head %.4f > 0, "
          "shock %.4f < 1)" % (pos["head"], pos["shock"]))
    # Plateau: the left star region (between the rarefaction tail and the contact) less a
    # fifth of its width at either end.
    margin = 0.2 * (pos["contact"] - pos["tail"])
    lo, hi = pos["tail"] + margin, pos["contact"] - margin
    sel = (x > lo) & (x < hi)
    pm, um = float(np.median(p[sel])), float(np.median(u[sel]))
    check(abs(pm - rs.p_star) <= 0.01 * rs.p_star, "plateau pressure (median of %d values in "
          "[%.3f, %.3f]) %.6g, exact %.6g: %.2f %% (tolerance 1 %%)"
          % (sel.sum(), lo, hi, pm, rs.p_star,
             100 * abs(pm / rs.p_star - 1)))
    check(abs(um - rs.u_star) <= 0.01 * rs.u_star, "plateau velocity %.6g, exact %.6g: %.2f %% "
          "(tolerance 1 %%)" % (um, rs.u_star, 100 * abs(um / rs.u_star - 1)))

    def pex(xx):
        return rs.sample(xx, t)[2]
    drop = water.p - rs.p_star
    levels = {  # wave: (profile, level, scan from the right, limit, exact position)
        "shock": (p, 0.5 * (rs.p_star + air.p), True, None, pos["shock"]),
        "contact": (rho, 0.5 * (rs.rho_star_L + rs.rho_star_R), True, None, pos["contact"]),
        "rarefaction head": (p, water.p - 0.1 * drop, False, None,
                             exact_crossing(pex, water.p - 0.1 * drop, pos["head"], pos["tail"])),
        "rarefaction tail": (p, rs.p_star + 0.1 * drop, True, pos["contact"],
                             exact_crossing(pex, rs.p_star + 0.1 * drop, pos["head"], pos["tail"])),
    }
    for name, (f, level, right, limit, want) in levels.items():
        got = crossing(x, f, level, right, limit)
        if not check(got is not None, "%s: the profile crosses %.6g" % (name, level)):
            continue
        check(abs(got - want) <= 2 * h, "%s at x = %.5f, exact %.5f: %.2f zones off (tolerance 2 "
              "zones of 1/%d)" % (name, got, want, abs(got - want) / h, zones))


# ---------------------------------------------------------------------------------------
# Saltzman piston

def history_min_jacobian(run):
    """The smallest min_jacobian_ratio (det J / det J0) of history.csv and its line count."""
    path = os.path.join(run.outdir, "history.csv")
    if not os.path.exists(path):
        return None, "no history.csv"
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or "min_jacobian_ratio" not in rows[0]:
        return None, "no min_jacobian_ratio column in history.csv"
    return (min(float(r["min_jacobian_ratio"]) for r in rows), len(rows)), "min_jacobian_ratio"


def cmd_saltzman(args):
    _, np = modules()
    run = V.Run(args, V.deck_path(args, "saltzman2d"), os.path.join(args.work, "run"),
                [QUIET, ONE_DUMP, "output.viz_refine=%d" % args.viz_refine] + args.set)
    if not run.ok():
        return
    d = final_dump(run)
    t = d["time"]
    xs = 4.0 * t / 3.0
    check(abs(t - 0.6) <= 1e-12, "the run reached t = 0.6 untangled (t = %.17g, %d steps, "
          "%d repeated; wall %.1f s)" % (t, run.summary["steps"], run.summary["steps_repeated"],
                                          run.wall))
    m = cell_measures(d)
    check(np.all(m > 0), "every sub-cell of the final mesh has positive area (smallest %.3e)"
          % m.min())
    # The energy the piston put in: the shocked gas (mass 1 * 4/3 t * 0.1) holds 1/2 of
    # kinetic and 1/2 of internal energy per unit mass, which is the piston's work p u A t.
    s = run.summary
    gained, work = s["energy_total"] - s["energy_total_initial"], 4.0 / 3.0 * t * 0.1
    check(abs(gained - work) <= 0.01 * work, "energy gained %.6g, the piston's work p u A t = "
          "%.6g: %.2f %% (tolerance 1 %%)" % (gained, work, 100 * abs(gained / work - 1)))
    hist, what = history_min_jacobian(run)
    if check(hist is not None, "history.csv records the smallest det J / det J0 (%s)" % what):
        check(hist[0] > 0, "smallest det J / det J0 over the %d lines of history.csv: %.6e > 0"
              % (hist[1], hist[0]))
    x = d["coordinates"][:, 0]
    rho = d["density"]
    # Post-shock density: the middle of the shocked gas, away from the piston (wall heating)
    # and the shock (its smeared width).
    lo, hi = t + 0.25 * (xs - t), xs - 0.25 * (xs - t)
    sel = (x > lo) & (x < hi)
    mean = float(rho[sel].mean())
    check(abs(mean - 4.0) <= args.rho_tol * 4.0, "post-shock density: mean %.5f over the %d "
          "vertices with %.3f < x < %.3f (range %.4f .. %.4f), exact 4: %.2f %% (tolerance %.0f %%)"
          % (mean, sel.sum(), lo, hi, rho[sel].min(), rho[sel].max(), 100 * abs(mean / 4 - 1),
             100 * args.rho_tol))
    # Shock position: the piston plus the area of the gas denser than 2.5 (the middle of the
    # jump 1 -> 4) over the channel's height 0.1.
    hot = float(np.sum(m * (rho[d["topology"]].mean(axis=1) > 2.5)))
    got = t + hot / 0.1
    h = 0.01
    check(abs(got - xs) <= 2 * h, "shock at x = %.5f (piston %.3f + compressed area %.6f / 0.1), "
          "exact 4t/3 = %.5f: %.2f zones of 0.01 off (tolerance 2)" % (got, t, hot, xs,
                                                                       abs(got - xs) / h))
    # Per row of the mesh: the shock as the first x from the right with rho > 2.5.
    ys = d["coordinates"][:, 1]
    off = []
    for j in range(10):
        band = (ys > 0.01 * j + 1e-9) & (ys < 0.01 * (j + 1) - 1e-9)
        if band.any():
            xb, rb = x[band], rho[band]
            o = np.argsort(xb)
            c = crossing(xb[o], rb[o], 2.5, True)
            if c is not None:
                off.append(c - xs)
    if off:
        print("info  shock position per mesh row minus 4t/3: %s" % " ".join("%+.4f" % v for v in off))
        check(max(abs(v) for v in off) <= 2 * h, "shock position in every row within 2 zones "
              "(largest offset %.4f)" % max(abs(v) for v in off))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blast", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--threads", type=int, default=1, help="OpenMP threads of each run")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("noh")
    p.add_argument("--dim", type=int, choices=(2, 3), required=True)
    p.add_argument("--refine", type=lambda v: [int(x) for x in v.split(",")], required=True,
                   help="mesh.refine_serial of each level (the 2^dim-zone mesh refined: 2 -> 8 "
                        "zones per direction)")
    p.add_argument("--viz-refine", type=int, default=4)
    p.add_argument("set", nargs="*")
    p = sub.add_parser("water_air")
    p.add_argument("--case", choices=sorted(TUBES), default="water_air")
    p.add_argument("--viz-refine", type=int, default=4)
    p.add_argument("set", nargs="*")
    p = sub.add_parser("saltzman")
    p.add_argument("--viz-refine", type=int, default=4)
    p.add_argument("--rho-tol", type=float, default=0.03)
    p.add_argument("set", nargs="*")
    args = ap.parse_args()
    {"noh": cmd_noh, "water_air": cmd_water_air, "saltzman": cmd_saltzman}[args.cmd](args)
    print("%d check(s) failed" % len(V.FAILURES) if V.FAILURES else "all checks passed")
    return 1 if V.FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
