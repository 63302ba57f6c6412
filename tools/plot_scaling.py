#!/usr/bin/env python3
"""Plot scaling studies (CSV files of tools/scaling.py) as one PNG: time per step and parallel
efficiency against the number of ranks, with the ideal lines.

    tools/plot_scaling.py OUT/weak.csv [OUT/strong.csv ...] [-o scaling.png] [--title TEXT]

Default output: the first CSV with .png. Uses matplotlib (Agg backend) when it is installed;
without it a plain PNG (curves and axes, no text) is written and a note says so.
"""
import argparse
import csv
import math
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_options import refuse_unknown_options  # noqa: E402

COLORS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14),
          (23, 190, 207)]


def load(path):
    """(label, study, [(ranks, seconds_per_step, efficiency)]) of one CSV, failed runs left out."""
    pts, study, extra = [], None, ""
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("status", "ok") != "ok" or not r.get("seconds_per_step"):
                continue
            study = r.get("study") or study
            eff = float(r["efficiency"]) if r.get("efficiency") else float("nan")
            pts.append((int(r["ranks"]), float(r["seconds_per_step"]), eff))
            if not extra and r.get("zones_per_rank"):
                zpr = float(r["zones_per_rank"])
                thr = int(r.get("threads") or 1)
                extra = ", %d thread%s" % (thr, "" if thr == 1 else "s")
                if study == "weak":
                    extra = ", %.0f zones/rank" % zpr + extra
                elif r.get("zones"):
                    extra = ", %s zones" % r["zones"] + extra
    pts.sort()
    name = os.path.splitext(os.path.basename(path))[0]
    label = name if name == study else "%s (%s)" % (name, study)
    return label + extra, study or "run", pts


def ideal_time(study, pts, n):
    n0, t0 = pts[0][0], pts[0][1]
    return t0 if study == "weak" else t0 * n0 / n


def plot_matplotlib(series, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.3))
    ranks = sorted({p[0] for _, _, pts in series for p in pts})
    for i, (label, study, pts) in enumerate(series):
        c = tuple(x / 255 for x in COLORS[i % len(COLORS)])
        n = [p[0] for p in pts]
        ax1.plot(n, [p[1] for p in pts], "o-", color=c, label=label)
        ax1.plot(n, [ideal_time(study, pts, k) for k in n], "--", color=c, alpha=0.5,
                 label="ideal (%s)" % study)
        ax2.plot(n, [100 * p[2] for p in pts], "o-", color=c, label=label)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(r) for r in ranks])
        ax.set_xlabel("MPI ranks")
        ax.grid(True, which="both", alpha=0.3)
    ax1.set_yscale("log")
    ax1.set_ylabel("time per step (s)")
    ax1.set_title("time per step (slowest rank)")
    ax1.legend(fontsize=8)
    ax2.axhline(100, color="gray", ls="--", lw=1)
    top = max([110] + [100 * p[2] for _, _, pts in series for p in pts if not math.isnan(p[2])])
    ax2.set_ylim(0, top * 1.05)
    ax2.set_ylabel("parallel efficiency (%)")
    ax2.set_title("efficiency vs the smallest rank count")
    ax2.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# ---- fallback without matplotlib: a small raster plot, written as PNG with zlib ----------

class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b"\xff" * (w * h * 3))

    def dot(self, x, y, c):
        x, y = int(round(x)), int(round(y))
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(c)

    def line(self, x0, y0, x1, y1, c, dash=0, width=1):
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for k in range(n + 1):
            if dash and (k // dash) % 2:
                continue
            x, y = x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n
            for dx in range(width):
                for dy in range(width):
                    self.dot(x + dx - width // 2, y + dy - width // 2, c)

    def box(self, x, y, r, c):
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                self.dot(x + dx, y + dy, c)

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[3 * self.w * y:3 * self.w * (y + 1)])
                       for y in range(self.h))

        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            f.write(chunk(b"IEND", b""))


def plot_plain(series, out):
    cv = Canvas(1000, 420)
    ranks = sorted({p[0] for _, _, pts in series for p in pts})
    xlo, xhi = math.log2(ranks[0]), math.log2(ranks[-1])
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    times = [p[1] for _, _, pts in series for p in pts]
    times += [ideal_time(s, pts, p[0]) for _, s, pts in series for p in pts]
    tlo, thi = math.log10(min(times)), math.log10(max(times))
    if thi - tlo < 1e-9:
        tlo, thi = tlo - 0.5, thi + 0.5
    effs = [p[2] for _, _, pts in series for p in pts if not math.isnan(p[2])]
    ehi = max([1.1] + effs) * 1.05
    panels = [(60, 30, 430, 360), (560, 30, 430, 360)]  # x, y, width, height

    def to_px(panel, xv, yv):
        x, y, w, h = panel
        return x + (xv - xlo) / (xhi - xlo) * w, y + h - yv * h

    for p in panels:
        x, y, w, h = p
        for a, b, c, d in ((x, y, x + w, y), (x, y + h, x + w, y + h), (x, y, x, y + h),
                           (x + w, y, x + w, y + h)):
            cv.line(a, b, c, d, (0, 0, 0))
        for r in ranks:
            px = to_px(p, math.log2(r), 0)[0]
            cv.line(px, y + h, px, y + h + 6, (0, 0, 0))
            cv.line(px, y, px, y + h, (225, 225, 225))
    ideal = to_px(panels[1], xlo, 1.0 / ehi)[1]
    cv.line(panels[1][0], ideal, panels[1][0] + panels[1][2], ideal, (128, 128, 128), dash=6)
    for i, (_, study, pts) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        light = tuple((v + 255) // 2 for v in c)
        tpx = [to_px(panels[0], math.log2(n), (math.log10(t) - tlo) / (thi - tlo)) for n, t, _ in pts]
        ipx = [to_px(panels[0], math.log2(n), (math.log10(ideal_time(study, pts, n)) - tlo)
                     / (thi - tlo)) for n, _, _ in pts]
        epx = [to_px(panels[1], math.log2(n), e / ehi) for n, _, e in pts if not math.isnan(e)]
        for a, b in zip(ipx, ipx[1:]):
            cv.line(a[0], a[1], b[0], b[1], light, dash=6)
        for curve in (tpx, epx):
            for a, b in zip(curve, curve[1:]):
                cv.line(a[0], a[1], b[0], b[1], c, width=2)
            for q in curve:
                cv.box(q[0], q[1], 3, c)
    cv.png(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", help="CSV files written by tools/scaling.py")
    ap.add_argument("-o", "--output", help="PNG file (default: first CSV with .png)")
    ap.add_argument("--title", help="figure title (default: the CSV names)")
    refuse_unknown_options(ap, argv)
    args = ap.parse_args(argv)
    series = []
    for path in args.csv:
        try:
            label, study, pts = load(path)
        except (OSError, KeyError, ValueError) as e:
            print("plot_scaling.py: error: cannot read %s: %s" % (path, e), file=sys.stderr)
            return 2
        if pts:
            series.append((label, study, pts))
        else:
            print("plot_scaling.py: note: %s has no successful run" % path, file=sys.stderr)
    if not series:
        print("plot_scaling.py: error: nothing to plot", file=sys.stderr)
        return 1
    out = args.output or os.path.splitext(args.csv[0])[0] + ".png"
    title = args.title or "blast_gpu scaling: " + ", ".join(os.path.basename(p) for p in args.csv)
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
    if have_mpl:
        plot_matplotlib(series, out, title)
    else:
        plot_plain(series, out)
        print("plot_scaling.py: note: matplotlib not found (Debian: python3-matplotlib): wrote a "
              "plain PNG without labels (left: time per step, log-log; right: efficiency, "
              "dashed = ideal)", file=sys.stderr)
    print("wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
