#!/usr/bin/env python3
"""Line-out: a field of visualization dumps along a straight line, as a PNG.

    tools/plot_lineout.py out/sod1d/viz --field density
    tools/plot_lineout.py out/sedov2d/viz/viz_000004.h5 --field pressure --from 0,0 --to 1,1
    tools/plot_lineout.py out/triple/viz/viz_0000*.h5 --field velocity --component x \\
        --from 0,1.5 --to 7,1.5 --tol 0.02 -o lineout.png

Every sub-cell vertex within --tol of the segment --from .. --to (distance to the line, and
projection inside the segment) is plotted against its distance from --from, one series per
dump (labelled with its time). Vertices are duplicated per zone, so zone boundaries show
both one-sided values. Inputs: dumps (viz_NNNNNN.h5), time series (blast.xdmf: every dump)
or viz folders. Defaults: the line along x through the lower corner of the domain's
bounding box, tol = half the mean sub-cell size. Vector fields: --component x, y, z or mag
(default). Prints how many vertices each series has.

Needs numpy, h5py, matplotlib (Debian packages; see tools/plot_sedov.py).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blastviz_common import dumps_of, plot_modules  # noqa: E402
from cli_options import refuse_unknown_options  # noqa: E402

np = h5py = matplotlib = None  # plot_modules(), once the arguments are parsed


def point(text, dim_pad=3):
    return np.array([float(c) for c in text.split(",")] + [0.0] * dim_pad)[:3]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="viz_NNNNNN.h5, blast.xdmf or viz folders")
    ap.add_argument("--field", default="density",
                    help="density, pressure, specific_internal_energy, sound_speed, velocity, "
                         "material, rank (default density)")
    ap.add_argument("--component", default="mag", help="for velocity: x, y, z or mag")
    ap.add_argument("--from", dest="p0", help="start point x[,y[,z]]")
    ap.add_argument("--to", dest="p1", help="end point x[,y[,z]]")
    ap.add_argument("--tol", type=float, help="distance from the line (default: half a sub-cell)")
    ap.add_argument("-o", "--output", help="PNG file (default lineout_<field>.png next to the "
                                           "first dump)")
    ap.add_argument("--title", help="plot title")
    refuse_unknown_options(ap, sys.argv[1:])
    args = ap.parse_args()
    global np, h5py, matplotlib
    np, h5py, matplotlib = plot_modules("plot_lineout.py")
    files = [f for p in args.inputs for f in dumps_of(p)]
    if not files:
        sys.exit("no dumps given")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    cmap = plt.get_cmap("viridis")
    times = []
    for name in files:
        with h5py.File(name, "r") as f:
            times.append(float(f.attrs["time"]))
    t_first, t_last = min(times), max(times)
    total = 0
    for i, name in enumerate(files):
        with h5py.File(name, "r") as f:
            X = f["coordinates"][...]
            if args.field not in f:
                sys.exit("%s has no field %s" % (name, args.field))
            d = f[args.field]
            vals = d[...]
            t, dim = float(f.attrs["time"]), int(f.attrs["dim"])
            if vals.shape[0] != X.shape[0]:  # a cell field: give each vertex its cell's value
                T = f["topology"][...]
                per_vertex = np.empty(X.shape[0], dtype=float)
                per_vertex[T.ravel()] = np.repeat(vals, T.shape[1])
                vals = per_vertex
            ncell = f["topology"].shape[0]
        if vals.ndim == 2:
            comp = args.component
            vals = np.linalg.norm(vals, axis=1) if comp == "mag" else vals[:, "xyz".index(comp)]
        lo, hi = X.min(axis=0), X.max(axis=0)
        p0 = point(args.p0) if args.p0 else lo.copy()
        p1 = point(args.p1) if args.p1 else np.array([hi[0], lo[1], lo[2]])
        length = np.linalg.norm(p1 - p0)
        if length == 0:
            sys.exit("the line has zero length")
        u = (p1 - p0) / length
        tol = args.tol
        if tol is None:
            extent = np.prod([hi[g] - lo[g] for g in range(dim)])
            tol = 0.5 * (extent / ncell) ** (1.0 / dim)
        s = (X - p0) @ u
        dist = np.linalg.norm(X - p0 - np.outer(s, u), axis=1)
        sel = (dist <= tol) & (s >= -tol) & (s <= length + tol)
        order = np.argsort(s[sel], kind="stable")
        total += int(sel.sum())
        color = cmap((t - t_first) / (t_last - t_first)) if t_last > t_first else "tab:blue"
        ax.plot(s[sel][order], vals[sel][order], ".-", ms=3, lw=0.6, color=color,
                label="t = %.4g" % t)
        print("%s: t = %.6g, %d vertices within %.3g of the line" % (name, t, sel.sum(), tol))
    if total == 0:
        sys.exit("no vertex within the tolerance of the line: give --tol, --from, --to")
    label = args.field + ("" if args.field != "velocity" else " (%s)" % args.component)
    ax.set_xlabel("distance along the line from (%s)" % ", ".join("%.3g" % c for c in p0[:dim]))
    ax.set_ylabel(label)
    ax.set_title(args.title or "%s along (%s) - (%s)" % (
        label, ", ".join("%.3g" % c for c in p0[:dim]), ", ".join("%.3g" % c for c in p1[:dim])),
        fontsize=10)
    ax.grid(alpha=0.3)
    if len(files) <= 12:
        ax.legend(fontsize=8)
    else:  # many dumps: a colour bar of the time instead of a legend
        sm = matplotlib.cm.ScalarMappable(cmap=cmap, norm=matplotlib.colors.Normalize(t_first, t_last))
        fig.colorbar(sm, ax=ax, label="t")
    fig.tight_layout()
    out = args.output or os.path.join(os.path.dirname(files[0]), "lineout_%s.png" % args.field)
    fig.savefig(out)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
