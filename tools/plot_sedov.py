#!/usr/bin/env python3
"""Sedov blast wave: density against the distance from the blast point, every vertex of a
visualization dump (blast_gpu [output] viz_steps / viz_dt) against the exact solution.

    tools/plot_sedov.py out/sedov2d/viz                      # the newest dump of the series
    tools/plot_sedov.py out/sedov2d/viz/viz_000004.h5 -o sedov.png
    tools/plot_sedov.py out/sedov2d/viz/blast.xdmf --energy 1 --gamma 1.4

The input is a dump (viz_NNNNNN.h5), a time series (blast.xdmf: its newest dump) or the
folder that holds them. Output: a PNG (default: the dump's name with .png) and one line on
stdout with the shock radius and the density errors at the vertices.

The exact solution (Kamm and Timmes, "On efficient generation of numerically robust Sedov
solutions", LA-UR-07-2849, standard case, omega = 0) is computed here with numpy, from the
similarity form; it is checked against the solver's C implementation
(hydro/problems/sedov_exact.c) by tests/viz/test_viz_tools.py. E0 is the energy of the
whole symmetric blast (a quadrant of the 2D problem holds E0/4), the geometry
(planar/cylindrical/spherical) is the dump's dimension, the ambient gas is cold, at rest,
of density rho1.

Needs numpy, h5py, matplotlib (Debian: python3-numpy python3-h5py python3-matplotlib,
installed by tools/install-deps); if the python3 on PATH lacks them, the script re-runs
itself with /usr/bin/python3.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blastviz_common import newest_dump, plot_modules  # noqa: E402
from cli_options import refuse_unknown_options  # noqa: E402

try:  # the exact solution needs numpy alone (tests/viz imports this module for it)
    import numpy as np
except ImportError:
    np = None
h5py = matplotlib = None  # plot_modules(), once the arguments are parsed


class SedovExact:
    """Self-similar Sedov-Taylor solution, standard case (V2 < V*, gamma != 2).

    With j the geometry (1, 2, 3) and V the similarity variable between V0 (center) and V2
    (shock): r = r2 lambda, u = V r / t, rho = rho2 g, p = p2 h, where
      x1 = a V, x2 = b (c V - 1), x3 = d (1 - e V), x4 = b (1 - (j+2) V / 2),
      lambda = x1^-a0 x2^-a2 x3^-a1,  g = x2^a3 x3^a4 x4^a5,
      h = x1^(j a0) x3^(a4 - 2 a1) x4^(1 + a5).
    Points are parametrized by s = x2^beta in [0, 1] (beta = -a2): lambda is then close
    to linear in s and the energy integrand is smooth, so plain Gauss-Legendre panels give
    the energy integral alpha (E0 = alpha rho1 r2^(j+2) / t^2) to ~1e-12.
    """

    def __init__(self, dim, gamma=1.4, energy=1.0, rho1=1.0):
        j, g = float(dim), float(gamma)
        if not (dim in (1, 2, 3) and g > 1):
            raise ValueError("Sedov: geometry 1..3 and gamma > 1")
        if (j + 2) * (g + 1) - 2 * (2 + j * (g - 1)) <= 0 or abs(g - 2) < 1e-3:
            raise ValueError("Sedov: only the standard case (spherical gamma < 7, gamma != 2)")
        self.j, self.g, self.energy, self.rho1 = j, g, float(energy), float(rho1)
        self.a = (j + 2) * (g + 1) / 4
        self.b = (g + 1) / (g - 1)
        self.c = (j + 2) * g / 2
        self.d = (j + 2) * (g + 1) / ((j + 2) * (g + 1) - 2 * (2 + j * (g - 1)))
        self.e = (2 + j * (g - 1)) / 2
        self.a0 = 2 / (j + 2)
        self.a2 = -(g - 1) / (2 * (g - 1) + j)
        self.a1 = (j + 2) * g / (2 + j * (g - 1)) * (2 * j * (2 - g) / (g * (j + 2) ** 2) - self.a2)
        self.a3 = j / (2 * (g - 1) + j)
        self.a4 = (j + 2) * j * self.a1 / (j * (2 - g))
        self.a5 = -2 * j / (j * (2 - g))
        self.V0 = 2 / ((j + 2) * g)
        self.beta = -self.a2
        self.alpha = self._alpha()

    def _point(self, s):
        """y = x2, V, lambda, g, h, dlambda/ds at s in [0, 1] (arrays)."""
        s = np.asarray(s, dtype=float)
        y = s ** (1 / self.beta)
        V = self.V0 * (1 + y / self.b)
        x1, x3 = self.a * V, self.d * (1 - self.e * V)
        x4 = self.b * (1 - (self.j + 2) * V / 2)
        eG = x1 ** -self.a0 * x3 ** -self.a1
        lam = s * eG
        gg = s ** (self.a3 / self.beta) * x3 ** self.a4 * x4 ** self.a5
        hh = x1 ** (self.j * self.a0) * x3 ** (self.a4 - 2 * self.a1) * x4 ** (1 + self.a5)
        dV = self.V0 / self.b  # dV/dy
        dG = -self.a0 * self.a * dV / x1 + self.a1 * self.d * self.e * dV / x3  # dG/dy
        dlam = eG * (1 + dG * y / self.beta)
        return V, lam, gg, hh, dlam

    def _alpha(self):
        xg, wg = np.polynomial.legendre.leggauss(20)
        edges = np.linspace(0.0, 1.0, 201)
        lo, hi = edges[:-1, None], edges[1:, None]
        s = (0.5 * (lo + hi) + 0.5 * (hi - lo) * xg).ravel()
        w = (0.5 * (hi - lo) * wg).ravel()
        V, lam, gg, hh, dlam = self._point(s)
        j, g = self.j, self.g
        kin = 0.5 * self.b * gg * V ** 2 * lam ** (j + 1)
        internal = 8 / ((g + 1) * (g - 1) * (j + 2) ** 2) * hh * lam ** (j - 1)
        sigma = {1: 2.0, 2: 2 * np.pi, 3: 4 * np.pi}[int(j)]
        return sigma * float(np.sum(w * (kin + internal) * dlam))

    def shock_radius(self, t):
        return (self.energy / (self.alpha * self.rho1)) ** (1 / (self.j + 2)) * t ** (
            2 / (self.j + 2)) if t > 0 else 0.0

    def profile(self, t, n=2001):
        """(r, rho) along the solution from the center to the shock (parametric in s)."""
        s = np.linspace(0.0, 1.0, n)
        _, lam, gg, _, _ = self._point(s)
        return self.shock_radius(t) * lam, self.rho1 * self.b * gg

    def density(self, t, r):
        """Exact density at radii r (array) and time t > 0 (bisection on s, monotone)."""
        r = np.atleast_1d(np.asarray(r, dtype=float))
        r2 = self.shock_radius(t)
        rho = np.full(r.shape, self.rho1)
        inside = r < r2
        target = r[inside] / r2
        lo, hi = np.zeros(target.shape), np.ones(target.shape)
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            below = self._point(mid)[1] < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        rho[inside] = self.rho1 * self.b * self._point(0.5 * (lo + hi))[2]
        return rho


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="viz_NNNNNN.h5, blast.xdmf or the viz folder")
    ap.add_argument("-o", "--output", help="PNG file (default: the dump with .png)")
    ap.add_argument("--energy", type=float, default=1.0, help="blast energy E0 (default 1)")
    ap.add_argument("--gamma", type=float, default=1.4, help="ratio of specific heats (1.4)")
    ap.add_argument("--rho1", type=float, default=1.0, help="ambient density (1)")
    ap.add_argument("--origin", default="0,0,0", help="blast point x,y,z (default 0,0,0)")
    ap.add_argument("--title", help="plot title")
    refuse_unknown_options(ap, sys.argv[1:])
    args = ap.parse_args()
    global np, h5py, matplotlib
    np, h5py, matplotlib = plot_modules("plot_sedov.py")
    dump = newest_dump(args.input)
    with h5py.File(dump, "r") as f:
        X = f["coordinates"][...]
        rho = f["density"][...]
        t = float(f.attrs["time"])
        step = int(f.attrs["step"])
        dim = int(f.attrs["dim"])
        problem = f.attrs.get("problem", b"")
        problem = problem.decode() if isinstance(problem, bytes) else str(problem)
        info = "k = %d, %d zones x %d^%d sub-cells" % (
            int(f.attrs["order_kinematic"]), int(f.attrs["zones_global"]), int(f.attrs["refine"]),
            dim)
    if problem and problem != "sedov":
        print("note: %s is from problem '%s', not sedov" % (dump, problem))
    origin = np.array([float(c) for c in args.origin.split(",")] + [0.0] * 3)[:3]
    r = np.linalg.norm(X - origin, axis=1)
    exact = SedovExact(dim, args.gamma, args.energy, args.rho1)
    r2 = exact.shock_radius(t)
    rmax = max(float(r.max()), 1.05 * r2)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    ax.plot(r, rho, ".", ms=2, color="tab:blue", alpha=0.5, label="blast_gpu (sub-cell vertices)")
    if t > 0:
        re, rhoe = exact.profile(t)
        re = np.concatenate([re, [r2, rmax]])
        rhoe = np.concatenate([rhoe, [args.rho1, args.rho1]])
        ax.plot(re, rhoe, "-", color="black", lw=1.2, label="exact (Kamm-Timmes)")
        ax.axvline(r2, color="gray", ls=":", lw=0.8)
        err = np.abs(rho - exact.density(t, r))
        summary = ("t = %.6g, shock radius %.6f, density error at %d vertices: mean %.4f, "
                   "max %.4f (peak %.4f, exact %.4f)" % (t, r2, len(r), err.mean(), err.max(),
                                                        rho.max(), args.rho1 * exact.b))
    else:
        summary = "t = 0: no exact solution plotted"
    ax.set_xlim(0, rmax)
    ax.set_xlabel("distance from the blast point")
    ax.set_ylabel("density")
    geometry = {1: "planar", 2: "cylindrical", 3: "spherical"}[dim]
    ax.set_title(args.title or "Sedov %dD (%s), t = %.4g, step %d\n%s" % (dim, geometry, t, step,
                                                                         info), fontsize=10)
    ax.legend(loc="upper left", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = args.output or os.path.splitext(dump)[0] + ".png"
    fig.savefig(out)
    print("%s: %s -> %s" % (dump, summary, out))


if __name__ == "__main__":
    main()
