#!/usr/bin/env python3
"""GPU vs CPU comparison of blast_gpu runs, standard library only.

  compare_runs.py short BLAST OUTDIR [--ranks 1,4] [--steps 60]
      Each shipped deck, shortened to --steps attempts, at orders 1-4 (2D and 3D), with
      [gpu] backend = cpu and = cuda on each rank count: same accepted/attempted steps and
      |e| within 1e-10 relative. One PASS/FAIL line per case.
  compare_runs.py full BLAST OUTDIR REFDIR [--ranks 1,4]
      The published full-length runs on the GPU against CPU summaries in REFDIR/<deck>.json
      (same steps and |e| within 1e-10), and against the published table (|e| within 1e-9).
  compare_runs.py hybrid BLAST OUTDIR [--ranks 1,4] [--steps 60]
      Each shipped deck, shortened, on the GPU alone ([balance] mode = off) and with the
      CPU+GPU split at gpu_fraction 1.0, 0.7, 0.0 (fixed) and auto: same steps
      and |e| within 1e-12 relative of the GPU-alone run.
  compare_runs.py builds BLAST_BEFORE BLAST_AFTER OUTDIR [--backend cpu,cuda] [--ranks 1,2] [--steps 20]
      The same cases as `short`, each run by two builds (e.g. before and after a restructure)
      on each backend: steps, attempts, CG iterations, t, dt, |e| and the energies must be
      bitwise equal. One PASS/FAIL line per case.
--jobs N runs N cases at a time (a GPU node with many cores; each run's OpenMP threads
come from OMP_NUM_THREADS, default 2 in hybrid mode); the lines are printed in order.
Exit status: 0 when every case passes.
"""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

JOBS = 1

def pmap(f, items):
    """f over items, JOBS at a time, results in order."""
    if JOBS <= 1:
        return [f(x) for x in items]
    with ThreadPoolExecutor(JOBS) as ex:
        return list(ex.map(f, items))

INPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "inputs")
PUBLISHED = {  # method spec 15.1
    "taylor_green2d": (339, 0.000702, 4.9695537349e+01), "taylor_green3d": (1041, 0.000121, 3.3909635545e+03),
    "sedov2d": (1154, 0.001655, 4.6303396053e+01), "sedov3d": (560, 0.002449, 1.3408616722e+02),
    "sod1d": (413, 0.000470, 3.2012077410e+01), "triple_point2d": (2872, 0.000064, 5.6547039096e+01),
    "triple_point3d": (858, 0.000474, 5.6691500623e+01), "gresho2d": (776, 0.000045, 4.0982431726e+02),
    "rayleigh_taylor2d": (2462, 0.000050, 1.1792848680e+02)}

def run(blast, n, deck, out, extra):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "-n", str(n), "--oversubscribe", "--bind-to", "none", blast, deck, "output.dir=" + out,
           "output.overwrite=true", "output.print_every=100000"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        print(p.stdout[-2000:], p.stderr[-2000:])
        return None
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)

def short_cases():
    cases = []
    for deck in ["sedov2d", "sedov3d", "taylor_green2d", "taylor_green3d", "triple_point2d",
                 "triple_point3d", "gresho2d", "rayleigh_taylor2d", "sod1d"]:
        cases.append((deck, []))
    for k in (1, 3, 4):
        cases.append(("sedov2d", ["fem.order_kinematic=%d" % k]))
        cases.append(("sedov3d", ["fem.order_kinematic=%d" % k, "mesh.refine_serial=1"]))
    return cases

def short(blast, outdir, ranks, steps):
    cases = short_cases()
    ok_all = True
    for n in ranks:
        for deck, extra in cases:
            tag = "%s_%s_np%d" % (deck, "_".join(e.split("=")[1] for e in extra) or "k", n)
            args = ["time.max_steps=%d" % steps] + extra
            rc = run(blast, n, os.path.join(INPUTS, deck + ".ini"), os.path.join(outdir, tag + "_cpu"),
                     args + ["gpu.backend=cpu"])
            rg = run(blast, n, os.path.join(INPUTS, deck + ".ini"), os.path.join(outdir, tag + "_gpu"),
                     args + ["gpu.backend=cuda"])
            if rc is None or rg is None:
                print("FAIL %-28s run failed" % tag)
                ok_all = False
                continue
            rel = abs(rc["e_norm"] - rg["e_norm"]) / abs(rc["e_norm"])
            ok = rc["steps"] == rg["steps"] and rc["step_attempts"] == rg["step_attempts"] and rel <= 1e-10
            ok_all = ok_all and ok
            print("%s %-28s ranks %d steps %d/%d |e| cpu %.16e gpu %.16e rel %.2e  wall cpu %.2fs gpu %.2fs"
                  % ("PASS" if ok else "FAIL", tag, n, rc["steps"], rg["steps"], rc["e_norm"], rg["e_norm"],
                     rel, rc["wall_seconds"], rg["wall_seconds"]))
            sys.stdout.flush()
    return ok_all

EXACT = ["steps", "step_attempts", "cg_iterations", "t", "dt", "e_norm", "energy_internal",
         "energy_kinetic", "energy_total"]

def builds(before, after, outdir, backends, ranks, steps):
    cases = [(b, n, deck, extra) for b in backends for n in ranks for deck, extra in short_cases()]

    def one(case):
        b, n, deck, extra = case
        tag = "%s_%s_np%d_%s" % (deck, "_".join(e.split("=")[1] for e in extra) or "k", n, b)
        args = ["time.max_steps=%d" % steps, "gpu.backend=" + b] + extra
        path = os.path.join(INPUTS, deck + ".ini")
        return tag, [run(x, n, path, os.path.join(outdir, tag + suffix), args)
                     for x, suffix in ((before, "_before"), (after, "_after"))]

    ok_all = True
    for (b, n, deck, extra), (tag, (r0, r1)) in zip(cases, pmap(one, cases)):
        if r0 is None or r1 is None:
            print("FAIL %-34s run failed" % tag)
            ok_all = False
            continue
        diff = [k for k in EXACT if r0.get(k) != r1.get(k)]
        ok_all = ok_all and not diff
        print("%s %-34s steps %d |e| %.17g %s" % ("PASS" if not diff else "FAIL", tag, r1["steps"], r1["e_norm"],
              "bitwise" if not diff else "differs in " + ", ".join("%s (%r vs %r)" % (k, r0.get(k), r1.get(k))
                                                                   for k in diff)))
        sys.stdout.flush()
    return ok_all

def full(blast, outdir, refdir, ranks):
    cases = [(deck, n) for deck in PUBLISHED for n in ranks]

    def one(case):
        deck, n = case
        return run(blast, n, os.path.join(INPUTS, deck + ".ini"), os.path.join(outdir, "%s_np%d" % (deck, n)),
                   ["gpu.backend=cuda"])

    ok_all = True
    for (deck, n), rg in zip(cases, pmap(one, cases)):
        steps, dt, e = PUBLISHED[deck]
        if rg is None:
            print("FAIL %-20s run failed" % deck)
            ok_all = False
            continue
        ok = rg["steps"] == steps and "%.6f" % rg["dt"] == "%.6f" % dt and abs(rg["e_norm"] - e) / e <= 1e-9
        line = "%-20s ranks %d gpu steps %d dt %.6f |e| %.16e (published rel %.1e)" % (
            deck, n, rg["steps"], rg["dt"], rg["e_norm"], abs(rg["e_norm"] - e) / e)
        ref = os.path.join(refdir, deck + ".json") if refdir else None
        if ref and os.path.exists(ref):
            with open(ref) as f:
                rc = json.load(f)
            rel = abs(rc["e_norm"] - rg["e_norm"]) / abs(rc["e_norm"])
            ok = ok and rc["steps"] == rg["steps"] and rel <= 1e-10
            line += " cpu %.16e rel %.2e%s" % (rc["e_norm"], rel, " (bitwise)" if rel == 0.0 else "")
        print("%s %s wall %.1fs" % ("PASS" if ok else "FAIL", line, rg["wall_seconds"]))
        sys.stdout.flush()
        ok_all = ok_all and ok
    return ok_all

def hybrid(blast, outdir, ranks, steps):
    splits = [("f1.0", ["balance.mode=fixed", "balance.gpu_fraction=1.0"]),
              ("f0.7", ["balance.mode=fixed", "balance.gpu_fraction=0.7"]),
              ("f0.0", ["balance.mode=fixed", "balance.gpu_fraction=0.0"]),
              ("auto", ["balance.mode=auto", "balance.period=1"])]
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    decks = ["sedov2d", "sedov3d", "taylor_green2d", "taylor_green3d", "triple_point2d",
             "triple_point3d", "gresho2d", "rayleigh_taylor2d", "sod1d"]
    cases = [(n, deck) for n in ranks for deck in decks]

    def one(case):
        n, deck = case
        path = os.path.join(INPUTS, deck + ".ini")
        args = ["time.max_steps=%d" % steps, "gpu.backend=cuda"]
        r0 = run(blast, n, path, os.path.join(outdir, "%s_np%d_off" % (deck, n)), args + ["balance.mode=off"])
        return [(tag, run(blast, n, path, os.path.join(outdir, "%s_np%d_%s" % (deck, n, tag)), args + extra), r0)
                for tag, extra in splits]

    ok_all = True
    for (n, deck), results in zip(cases, pmap(one, cases)):
        for tag, r, r0 in results:
            if r0 is None or r is None:
                print("FAIL %-20s ranks %d %s: run failed" % (deck, n, tag))
                ok_all = False
                continue
            rel = abs(r["e_norm"] - r0["e_norm"]) / abs(r0["e_norm"])
            ok = r["steps"] == r0["steps"] and r["step_attempts"] == r0["step_attempts"] and rel <= 1e-12
            ok_all = ok_all and ok
            b = r.get("balance", {})
            print("%s %-20s ranks %d %s steps %d/%d |e| %.16e gpu-only %.16e rel %.2e gpu share %s-%s (%s)"
                  % ("PASS" if ok else "FAIL", deck, n, tag, r["steps"], r0["steps"], r["e_norm"],
                     r0["e_norm"], rel, b.get("gpu_fraction_min"), b.get("gpu_fraction_max"),
                     b.get("phase")))
            sys.stdout.flush()
    return ok_all

if __name__ == "__main__":
    a = sys.argv[1:]
    def opt(name, default):
        if name in a:
            i = a.index(name)
            v = a[i + 1]
            del a[i:i + 2]
            return v
        return default
    backends = opt("--backend", "cpu,cuda").split(",")
    ranks = [int(x) for x in opt("--ranks", "1,4").split(",")]
    steps = int(opt("--steps", "60"))
    JOBS = int(opt("--jobs", "1"))
    if a[0] == "short":
        ok = short(a[1], a[2], ranks, steps)
    elif a[0] == "builds":
        ok = builds(a[1], a[2], a[3], backends, ranks, steps)
    elif a[0] == "hybrid":
        ok = hybrid(a[1], a[2], ranks, steps)
    elif a[0] == "full":
        ok = full(a[1], a[2], a[3] if len(a) > 3 else None, ranks)
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)
