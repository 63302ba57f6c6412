#!/usr/bin/env python3
"""CPU+GPU hybrid benchmark, on the GPU node from the project root:

    source .gpu-bundle/env.sh && python3 bench/gpu/bench_hybrid.py BLAST OUTDIR [--steps N]
        [--cpu-steps N] [--cases "2D Q2-Q1:512,3D Q2-Q1:48,3D Q4-Q3:16"] [--no-cpu]

For 2D Sedov Q2-Q1, 3D Sedov Q2-Q1 and 3D Sedov Q4-Q3 on box meshes, one rank with all
cores as OpenMP threads: time per step of the GPU alone ([balance] mode = off), of the
auto-balanced hybrid, and of the CPU backend alone; the balancer's converged GPU share and
the sampling periods it needed. Time per step = the progress lines' wall time over the
last half of the run (after the balancer has settled) / the step attempts in it (the lines
print the wall time to 0.01 s; their median increment is kept in hybrid.json as
step_median_s). Prints a
table; writes OUTDIR/hybrid.json. A benchmark, not a test.
"""
import json, os, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "sedov3d_box.ini")
CASES = [  # tag, dim, zones per direction, order
    ("2D Q2-Q1", 2, 512, 2),
    ("3D Q2-Q1", 3, 48, 2),
    ("3D Q4-Q3", 3, 16, 4),
]

def run(blast, out, tag, dim, n, k, steps, extra, threads):
    d = os.path.join(out, tag)
    el = " ".join([str(n)] * dim)
    sz = " ".join(["1"] * dim)
    cmd = [blast, DECK, "mesh.dim=%d" % dim, "mesh.elements=" + el, "mesh.size=" + sz,
           "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1), "time.max_steps=%d" % (steps - 1),
           "output.print_every=1", "output.dir=" + d, "output.overwrite=true", "checkpoint.at_end=false"] + extra
    if not any(e.startswith("gpu.autotune=") for e in extra):
        cmd.append("gpu.autotune=cached")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close", OMP_PLACES="cores")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(d + ".log", "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode != 0:
        print("  %s failed (exit %d): %s" % (tag, p.returncode, (p.stdout + p.stderr)[-600:]))
        return None
    lines = [(int(n), float(w)) for n, w in re.findall(r"^step\s+(\d+),.*?wall ([0-9.]+) s", p.stdout, re.M)]
    repeats = [int(n) for n in re.findall(r"^Repeating step (\d+)", p.stdout, re.M)]
    walls = [w for _, w in lines]
    inc = [b - a for a, b in zip(walls, walls[1:])]
    tail = inc[len(inc) // 2:] or inc
    # mean per step attempt over the last half: the progress lines print the wall time to
    # 0.01 s, too coarse for one step of a few ms (over the half run the resolution is
    # 0.01 s / its attempts); repeated attempts inside the window count as attempts
    i0 = len(lines) // 2
    tail_mean = float("nan")
    if len(lines) - 1 > i0:
        (s0, w0), (s1, w1) = lines[i0], lines[-1]
        tail_mean = (w1 - w0) / ((s1 - s0) + sum(1 for r in repeats if s0 < r <= s1))
    s = json.load(open(os.path.join(d, "summary.json")))
    return {"tag": tag, "zones": s["zones"], "h1_dofs": s["h1_dofs"],
            "step_s": tail_mean, "step_median_s": statistics.median(tail) if tail else float("nan"),
            "mean_attempt_s": s["timing"]["steps_max"] / s["step_attempts"], "setup_s": s.get("setup_seconds"),
            "energy": s.get("energy"),
            "balance": s.get("balance", {}), "e_norm": s["e_norm"], "steps": s["steps"]}

def main():
    args = sys.argv[1:]
    steps, cpu_steps, only = 60, 0, None
    if "--steps" in args:
        i = args.index("--steps")
        steps = int(args[i + 1])
        del args[i:i + 2]
    if "--cpu-steps" in args:
        i = args.index("--cpu-steps")
        cpu_steps = int(args[i + 1])
        del args[i:i + 2]
    no_cpu = "--no-cpu" in args  # GPU and hybrid only (the CPU-only runs take longest)
    if no_cpu:
        args.remove("--no-cpu")
    if "--cases" in args:  # e.g. --cases "2D Q2-Q1:384,3D Q2-Q1:48"
        i = args.index("--cases")
        only = dict((c.split(":")[0], int(c.split(":")[1])) for c in args[i + 1].split(","))
        del args[i:i + 2]
    if len(args) != 2 or any(a.startswith("-") for a in args):
        print(__doc__.strip())
        sys.exit(0 if any(a in ("-h", "--help") for a in args) else 2)
    blast, out = args[0], args[1]
    os.makedirs(out, exist_ok=True)
    threads = os.cpu_count() or 1
    res = []
    print("%-9s %8s %10s | %10s %10s %10s | %8s %8s %7s | %s" % ("case", "zones", "H1 dofs", "GPU ms", "hybrid ms",
          "CPU ms", "hyb/GPU", "share", "periods", "phase"))
    for name, dim, n, k in CASES:
        if only is not None:
            if name not in only:
                continue
            n = only[name]
        tag = name.replace(" ", "_").replace("-", "")
        # the first run tunes the kernel and caches the choice for the others
        run(blast, out, tag + "_tune", dim, n, k, 12, ["gpu.backend=cuda", "gpu.autotune=online"], threads)
        g = run(blast, out, tag + "_gpu", dim, n, k, steps, ["gpu.backend=cuda", "balance.mode=off"], threads)
        h = run(blast, out, tag + "_hybrid", dim, n, k, steps, ["gpu.backend=cuda", "balance.mode=auto",
                                                                 "balance.period=2"], threads)
        c = None if no_cpu else run(blast, out, tag + "_cpu", dim, n, k, cpu_steps or max(6, steps // 5),
                                    ["gpu.backend=cpu"], threads)
        if no_cpu:
            c = {"step_s": float("nan"), "setup_s": 0.0}
        if not (g and h and c):
            continue
        b = h["balance"]
        r = {"case": name, "gpu": g, "hybrid": h, "cpu": c}
        res.append(r)
        print("%-9s %8d %10d | %10.2f %10.2f %10.1f | %8.3f %7.1f%% %7s | %s" % (
            name, g["zones"], g["h1_dofs"], 1e3 * g["step_s"], 1e3 * h["step_s"], 1e3 * c["step_s"],
            h["step_s"] / g["step_s"], 100 * b.get("gpu_fraction_min", 1.0), b.get("converged_period"),
            b.get("phase")))
        print("          |e| gpu %.16e hybrid %.16e (rel %.1e); setup s: gpu %.1f hybrid %.1f cpu %.1f" % (
              g["e_norm"], h["e_norm"], abs(g["e_norm"] - h["e_norm"]) / abs(g["e_norm"]),
              g["setup_s"] or 0, h["setup_s"] or 0, c["setup_s"] or 0))
        sys.stdout.flush()
    json.dump(res, open(os.path.join(out, "hybrid.json"), "w"), indent=1)

if __name__ == "__main__":
    main()
