#!/usr/bin/env python3
"""Taylor-Green on tetrahedra: the 2D vortex extruded in z (standard library only).

  tg_tet.py BLAST DECK OUTDIR K N1 N2 [N3 ...]

Runs DECK (tests/verification/decks/taylor_green_tet.ini) at P_K-P_(K-1) on the box
[0,1]^2 x [0,1/n] of n x n x 1 box zones split into 6 tetrahedra each, for each n, to
t = 0.25. The velocity L2 error of summary.json is over a volume 1/n: divided by its
square root it is the error per unit area of the 2D problem (the solution does not depend
on z), whose rates between levels must be within 0.3 of the quadrilaterals' published ones
(docs/verification.md: Q2-Q1 at n = 8, 16, 32: 1.76, 1.93; Q3-Q2 at n = 4, 8, 16: 3.39,
3.32). Rates between other levels are printed, not checked.
"""
import json, math, os, subprocess, sys, time

PUBLISHED = {(2, 8, 16): 1.76, (2, 16, 32): 1.93, (3, 4, 8): 3.39, (3, 8, 16): 3.32}


def main():
    blast, deck, outdir, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ns = [int(a) for a in sys.argv[5:]]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    errs, ok = [], True
    for n in ns:
        out = os.path.join(outdir, "k%d_n%d" % (k, n))
        t0 = time.time()
        p = subprocess.run([blast, deck, "output.dir=" + out, "output.overwrite=true",
                            "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1),
                            "mesh.elements=%d %d 1" % (n, n), "mesh.size=1 1 %.17g" % (1.0 / n)],
                           capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-3000:])
            sys.exit("FAIL: n = %d exited with %d" % (n, p.returncode))
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        err = s["velocity_error_l2"] / math.sqrt(1.0 / n)
        line = "P%d-P%d, %d x %d x 1 box zones (%d tetrahedra): %d steps, t = %.6g, velocity L2 " \
               "error %.6e (per unit area %.6e), relative energy change %.2e, %.1f s" % (
                   k, k - 1, n, n, 6 * n * n, s["steps"], s["t"], s["velocity_error_l2"], err,
                   (s["energy_total"] - s["energy_total_initial"]) / s["energy_total_initial"], time.time() - t0)
        if errs:
            rate = math.log(errs[-1] / err) / math.log(n / ns[len(errs) - 1])
            line += ", rate %.3f" % rate
            ref = PUBLISHED.get((k, ns[len(errs) - 1], n))
            if ref is not None:
                good = abs(rate - ref) <= 0.3
                line += " (quadrilaterals %.2f)%s" % (ref, "" if good else "   <-- FAIL")
                ok = ok and good
        if abs(s["t"] - 0.25) > 1e-12:
            line += "   <-- FAIL: stopped at t = %.17g" % s["t"]
            ok = False
        errs.append(err)
        print(line, flush=True)
    sys.exit(0 if ok else "FAIL: the rates on tetrahedra differ from the quadrilaterals' by more than 0.3")


if __name__ == "__main__":
    main()
