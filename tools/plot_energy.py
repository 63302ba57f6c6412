#!/usr/bin/env python3
"""Energy history of a run as a PNG, from its progress output or from its visualization dumps.

    build/app/blast_gpu inputs/sedov2d.ini output.print_every=10 | tee run.log
    tools/plot_energy.py run.log                      # dE/E0 and |e| against t
    tools/plot_energy.py out/sedov2d/viz -o energy.png  # internal, kinetic, total from dumps

Progress output: the lines "step N, t = T, dt = D, |e| = E, dE/E0 = R, ..." that blast_gpu
prints every [output] print_every steps (other lines are skipped; several logs give several
curves). dE/E0 is the solver's own relative change of the total energy.

Dumps (viz_NNNNNN.h5, a blast.xdmf time series, or a viz folder): internal energy
sum rho e |K| and kinetic energy sum rho |v|^2 / 2 |K| over the linear sub-cells K, with the
mean of the vertex values of each sub-cell. This is an approximation of the high-order
integrals (good to a few percent on coarse meshes, better with a larger [output]
viz_refine), meant for trends; the exact figures are those of the progress lines and of
summary.json.

Needs numpy, h5py, matplotlib (Debian packages; see tools/plot_sedov.py).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from blastviz_common import dumps_of, plot_modules  # noqa: E402
from cli_options import refuse_unknown_options  # noqa: E402

np = h5py = matplotlib = None  # plot_modules(), once the arguments are parsed

NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)"
PROGRESS = re.compile(r"^step\s+(\d+), t = %s, dt = %s, \|e\| = %s, dE/E0 = %s" % (NUM, NUM, NUM, NUM))


def read_log(path):
    """Columns step, t, dt, |e|, dE/E0 of the progress lines of a log."""
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            m = PROGRESS.match(line.strip())
            if m:
                rows.append([float(g) for g in m.groups()])
    return np.array(rows).reshape(-1, 5)


def cell_measures(P, dim):
    """Length, area or volume of linear sub-cells; P: [ncell][2^dim][3] in VTK order."""
    if dim == 1:
        return np.abs(P[:, 1, 0] - P[:, 0, 0])
    if dim == 2:
        x, y = P[:, :, 0], P[:, :, 1]
        return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    # Hexahedra: 24 tetrahedra (cell centre, face centre, face edge); exact for planar faces.
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    c = P.mean(axis=1)
    vol = np.zeros(P.shape[0])
    for face in faces:
        fc = P[:, face, :].mean(axis=1) - c
        for i in range(4):
            a, b = P[:, face[i], :] - c, P[:, face[(i + 1) % 4], :] - c
            vol += np.einsum("ij,ij->i", np.cross(a, b), fc) / 6.0
    return np.abs(vol)


def dump_energies(path):
    with h5py.File(path, "r") as f:
        X, T = f["coordinates"][...], f["topology"][...]
        rho, e, v = f["density"][...], f["specific_internal_energy"][...], f["velocity"][...]
        t, dim = float(f.attrs["time"]), int(f.attrs["dim"])
    vol = cell_measures(X[T], dim)
    ie = np.sum(vol * (rho * e)[T].mean(axis=1))
    ke = np.sum(vol * (0.5 * rho * np.sum(v * v, axis=1))[T].mean(axis=1))
    return t, ie, ke


def is_dump_input(path):
    return os.path.isdir(path) or path.endswith(".h5") or path.endswith(".xdmf")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="run logs, or viz dumps / blast.xdmf / viz folders")
    ap.add_argument("-o", "--output", help="PNG file (default: energy.png next to the first input)")
    ap.add_argument("--title", help="plot title")
    refuse_unknown_options(ap, sys.argv[1:])
    args = ap.parse_args()
    global np, h5py, matplotlib
    np, h5py, matplotlib = plot_modules("plot_energy.py")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), dpi=120, sharex=True)
    if all(is_dump_input(p) for p in args.inputs):
        rows = sorted(dump_energies(f) for p in args.inputs for f in dumps_of(p))
        t, ie, ke = (np.array(c) for c in zip(*rows))
        total = ie + ke
        ax1.plot(t, ie, "o-", ms=3, label="internal")
        ax1.plot(t, ke, "s-", ms=3, label="kinetic")
        ax1.plot(t, total, "k^-", ms=3, label="total")
        ax1.set_ylabel("energy (sub-cell sums)")
        ax1.legend(fontsize=8)
        ax2.plot(t, (total - total[0]) / abs(total[0] or 1.0), "k.-")
        ax2.set_ylabel("(E - E(t0)) / E(t0)")
        print("%d dumps: t %.4g .. %.4g, total energy %.6g .. %.6g (sub-cell sums)" %
              (len(t), t[0], t[-1], total[0], total[-1]))
    else:
        for p in args.inputs:
            d = read_log(p)
            if not len(d):
                sys.exit("%s has no progress lines ('step N, t = ..., dE/E0 = ...')" % p)
            label = os.path.basename(p)
            ax1.plot(d[:, 1], d[:, 4], ".-", ms=3, label=label)
            ax2.plot(d[:, 1], d[:, 3], ".-", ms=3, label=label)
            print("%s: %d progress lines, t %.4g .. %.4g, final dE/E0 %.3e" %
                  (p, len(d), d[0, 1], d[-1, 1], d[-1, 4]))
        ax1.set_ylabel("dE/E0 (total energy change)")
        ax2.set_ylabel("|e| (energy norm)")
        if len(args.inputs) > 1:
            ax1.legend(fontsize=8)
    ax2.set_xlabel("t")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    ax1.set_title(args.title or "energy history", fontsize=10)
    fig.tight_layout()
    first = args.inputs[0]
    out = args.output or os.path.join(first if os.path.isdir(first) else os.path.dirname(first) or
                                      ".", "energy.png")
    fig.savefig(out)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
