#!/usr/bin/env python3
"""Figure of merit by element type and order: 3D Sedov (blast at the origin) on the unit
cube and 2D Sedov on the unit square, as boxes of quadrilaterals / hexahedra
([mesh] generator = box) and the same boxes split into triangles / tetrahedra
(generator = box_simplex: 2 triangles or 6 tetrahedra per box zone, the same H1 dofs at
the same order), all on the full-assembly path:

    python3 bench/gpu/elements.py --blast build/app/blast_gpu [--device gpu|cpu]
        [--orders 1,2,3,4] [--dims 2,3] [--dofs 2e6] [--steps 20] [--reps 3]
        [--extra KEY=VALUE ...] [--warm STEPS] [--large] [--out table.csv]

For each dimension and order the box has n zones per direction with (n k + 1)^d H1 nodes
close to --dofs (scalar nodes times d = H1 dofs). Each case runs --reps times; the table
gives the median FOM ("Major kernels total rate", megadofs x time steps / second), the
zones, H1 dofs, quadrature points per zone, the median time step, and for simplices the
ratio of their FOM to the tensor zones' at the same order and dofs. --large adds 3D
P2-P1 tetrahedra with at least 1.0e6 zones (n = 56: 1 053 696 tetrahedra) and the hexahedra
at the same n. On the GPU, --warm STEPS (default 40) first runs each case that many steps
with gpu.autotune=cached so that the timed runs use the tuned kernel shapes (the cache in
a temporary XDG_CACHE_HOME). Exit status 1 if a run fails.
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECK = os.path.join(ROOT, "bench", "gpu", "sedov3d_box.ini")

def run(args, blast, gen, dim, n, k, workdir, tag, steps=None):
    out = os.path.join(workdir, tag)
    cmd = [blast, DECK, "mesh.generator=" + gen, "mesh.dim=%d" % dim,
           "mesh.elements=" + " ".join([str(n)] * dim), "mesh.size=" + " ".join(["1.0"] * dim),
           "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1), "fem.assembly=full",
           "time.max_steps=%d" % (steps or args.steps), "output.print_every=100000", "output.dir=" + out,
           "output.overwrite=true", "checkpoint.at_end=false"]
    if args.device == "gpu":
        cmd += ["gpu.backend=cuda", "gpu.autotune=cached"]
    else:
        cmd.append("gpu.backend=cpu")
    cmd += args.extra
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               XDG_CACHE_HOME=os.path.join(workdir, "cache"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if p.returncode != 0:
        print("FAILED (%d): %s\n%s" % (p.returncode, " ".join(cmd), (p.stdout + p.stderr)[-1500:]))
        return None
    s = json.load(open(os.path.join(out, "summary.json")))
    return {"fom": s["fom"]["major_kernels"], "zones": s["zones"], "h1_dofs": s["h1_dofs"],
            "step": s["timing"]["steps_max"] / s["step_attempts"],
            "nqp": s["quadrature_points_per_zone"]}

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blast", required=True)
    ap.add_argument("--device", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--orders", default="1,2,3,4")
    ap.add_argument("--dims", default="2,3")
    ap.add_argument("--dofs", type=float, default=2e6)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--warm", type=int, default=40)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    cases = []
    for dim in [int(d) for d in args.dims.split(",")]:
        for k in [int(o) for o in args.orders.split(",")]:
            nodes = args.dofs / dim
            n = max(1, int(round((nodes ** (1.0 / dim) - 1) / k)))
            cases.append((dim, k, n))
    if args.large:
        cases.append((3, 2, 56))
    rows, fails = [], 0
    with tempfile.TemporaryDirectory() as work:
        for dim, k, n in cases:
            res = {}
            for gen in ("box", "box_simplex"):
                runs = []
                if args.device == "gpu" and args.warm > 0:
                    run(args, args.blast, gen, dim, n, k, work, "warm_%s_%d_%d_%d" % (gen, dim, k, n),
                        steps=args.warm)
                for r in range(args.reps):
                    x = run(args, args.blast, gen, dim, n, k, work, "%s_%d_%d_%d_%d" % (gen, dim, k, n, r))
                    if x is None:
                        fails += 1
                        break
                    runs.append(x)
                if runs:
                    res[gen] = dict(runs[0], fom=statistics.median(x["fom"] for x in runs),
                                    step=statistics.median(x["step"] for x in runs))
            for gen in ("box", "box_simplex"):
                if gen not in res:
                    continue
                x = res[gen]
                geom = {("box", 2): "quad", ("box", 3): "hex", ("box_simplex", 2): "tri",
                        ("box_simplex", 3): "tet"}[(gen, dim)]
                ratio = x["fom"] / res["box"]["fom"] if gen == "box_simplex" and "box" in res else None
                rows.append({"geom": geom, "dim": dim, "k": k, "n": n, "zones": x["zones"],
                             "h1_dofs": x["h1_dofs"], "nqp": x["nqp"], "fom": x["fom"],
                             "step_s": x["step"], "vs_tensor": ratio})
    print("%-5s %2s %4s %10s %10s %5s %12s %10s %9s" % ("geom", "k", "n", "zones", "H1 dofs", "nqp",
                                                       "FOM", "step [s]", "vs tensor"))
    for r in rows:
        print("%-5s %2d %4d %10d %10d %5d %12.1f %10.4g %9s" % (
            r["geom"], r["k"], r["n"], r["zones"], r["h1_dofs"], r["nqp"], r["fom"], r["step_s"],
            "%.2f" % r["vs_tensor"] if r["vs_tensor"] else ""))
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["geom"])
            w.writeheader()
            w.writerows(rows)
    return 1 if fails else 0

if __name__ == "__main__":
    sys.exit(main())
