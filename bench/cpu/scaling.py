#!/usr/bin/env python3
"""CPU strong and weak scaling of blast_gpu: 3D Sedov Q2-Q1 on generated box
meshes, MPI ranks x 1 OpenMP thread, the CPU backend. A benchmark, not a test.

    python3 bench/cpu/scaling.py BLAST OUTDIR [--ranks 1,2,4,8,16] [--steps 3]

strong: a fixed 40^3 = 64000-zone mesh on every rank count;
weak:   8000 zones per rank (20^3 per rank, the box grown with the rank count).
Time per step = the run's step timer / step attempts (setup excluded). Prints the
tables and efficiencies; writes OUTDIR/scaling.json.
"""
import json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "sedov3d_box.ini")
WEAK = {1: (20, 20, 20), 2: (40, 20, 20), 4: (40, 40, 20), 8: (40, 40, 40), 16: (80, 40, 40),
        32: (80, 80, 40), 64: (80, 80, 80)}

def run(blast, out, tag, ranks, elems, steps):
    d = os.path.join(out, tag)
    sx = [e / max(elems) for e in elems]  # keep zones cubical
    cmd = ["mpirun", "-n", str(ranks), "--oversubscribe", "--bind-to", "core", blast, DECK,
           "mesh.elements=%d %d %d" % elems, "mesh.size=%g %g %g" % tuple(sx), "time.max_steps=%d" % (steps - 1),
           "output.print_every=100000", "output.dir=" + d, "output.overwrite=true", "checkpoint.at_end=false",
           "gpu.backend=cpu"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        print("  %s failed: %s" % (tag, (p.stdout + p.stderr)[-500:]))
        return None
    s = json.load(open(os.path.join(d, "summary.json")))
    return {"ranks": ranks, "zones": s["zones"], "h1_dofs": s["h1_dofs"], "attempts": s["step_attempts"],
            "step_s": s["timing"]["steps_max"] / s["step_attempts"], "cg_iterations": s["cg_iterations"],
            "e_norm": s["e_norm"]}

def main():
    if any(a in ("-h", "--help") for a in sys.argv[1:]) or len(sys.argv) < 3:
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    blast, out = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    ranks = [1, 2, 4, 8, 16]
    steps = 3
    if "--ranks" in args:
        ranks = [int(x) for x in args[args.index("--ranks") + 1].split(",")]
    if "--steps" in args:
        steps = int(args[args.index("--steps") + 1])
    os.makedirs(out, exist_ok=True)
    res = {"strong": [], "weak": []}
    print("strong scaling, 3D Sedov Q2-Q1, 64000 zones:")
    for n in ranks:
        r = run(blast, out, "strong_np%d" % n, n, (40, 40, 40), steps)
        if r:
            first = res["strong"][0] if res["strong"] else r
            base = first["step_s"]
            r["efficiency"] = base * first["ranks"] / (n * r["step_s"])
            res["strong"].append(r)
            print("  %3d ranks: %8.3f s/step  speedup %6.2f  efficiency %5.1f%%  |e| %.13e"
                  % (n, r["step_s"], base / r["step_s"], 100 * r["efficiency"], r["e_norm"]))
            sys.stdout.flush()
    print("weak scaling, 3D Sedov Q2-Q1, 8000 zones per rank:")
    for n in ranks:
        r = run(blast, out, "weak_np%d" % n, n, WEAK[n], steps)
        if r:
            base = res["weak"][0]["step_s"] if res["weak"] else r["step_s"]
            r["efficiency"] = base / r["step_s"]
            res["weak"].append(r)
            print("  %3d ranks: %7d zones %8.3f s/step  efficiency %5.1f%%  (%d CG iterations)"
                  % (n, r["zones"], r["step_s"], 100 * r["efficiency"], r["cg_iterations"]))
            sys.stdout.flush()
    json.dump(res, open(os.path.join(out, "scaling.json"), "w"), indent=1)

if __name__ == "__main__":
    main()
