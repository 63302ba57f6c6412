#!/usr/bin/env python3
"""Per-kernel GPU profile of two builds, interleaved (a restructure must not slow
any kernel). Run on the GPU node from the project root:

    source .gpu-bundle/env.sh && python3 bench/gpu/profile_ab.py BEFORE AFTER OUTDIR [--reps 3]
        [--cases 2:32,3:16] [--steps 30] [--autotune off]

Each case k:n is 3D Sedov Q_k-Q_{k-1} on n^3 zones (bench/gpu/sedov3d_box.ini), run with
BLAST_GPU_PROFILE=1 by BEFORE, AFTER, BEFORE, AFTER, ... (--reps times each, alternating so
that drift of the machine hits both alike). For every kernel of the profile table it
prints the median ms/call of each build, the ratio AFTER/BEFORE, and the spread (max/min
over the repetitions) that says what noise is; |e| must be bitwise equal across all runs
of a case. With `--autotune off` every run uses the same launch shapes, so a difference
is the code's, not the tuner's choice. Exit status 1 if |e| differs or a run fails.
"""
import os, re, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "sedov3d_box.ini")
ROW = re.compile(r"^\s+(\S.*?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")

def run(blast, out, k, n, steps, autotune):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               BLAST_GPU_PROFILE="1", OMP_NUM_THREADS="4")
    cmd = ["mpirun", "-n", "1", "--bind-to", "none", blast, DECK, "mesh.elements=%d %d %d" % (n, n, n),
           "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1), "time.max_steps=%d" % (steps - 1),
           "output.print_every=100000", "output.dir=" + out, "output.overwrite=true",
           "checkpoint.at_end=false", "gpu.backend=cuda", "gpu.autotune=" + autotune]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        print(p.stdout[-3000:], p.stderr[-3000:])
        return None, None
    prof, inside = {}, False
    for line in p.stdout.splitlines():
        if "GPU kernel profile" in line:
            inside = True
            continue
        m = ROW.match(line) if inside else None
        if m:
            prof[m.group(1)] = float(m.group(4))
    e = re.search(r'"e_norm": ([-+.\deE]+)', open(os.path.join(out, "summary.json")).read())
    return prof, e.group(1) if e else None

def main():
    a = sys.argv[1:]
    def opt(name, default):
        if name in a:
            i = a.index(name)
            v = a[i + 1]
            del a[i:i + 2]
            return v
        return default
    reps, steps = int(opt("--reps", "3")), int(opt("--steps", "30"))
    autotune = opt("--autotune", "off")
    cases = [tuple(int(x) for x in c.split(":")) for c in opt("--cases", "2:32,3:16").split(",")]
    if len(a) != 3:
        sys.exit(__doc__)
    before, after, outdir = a
    ok = True
    for k, n in cases:
        res = {"before": [], "after": []}
        enorms = set()
        for r in range(reps):
            for tag, blast in (("before", before), ("after", after)):
                prof, e = run(blast, os.path.join(outdir, "q%d_n%d_%s_%d" % (k, n, tag, r)), k, n, steps, autotune)
                if prof is None:
                    print("FAIL Q%d n=%d %s: run failed" % (k, n, tag))
                    ok = False
                    continue
                res[tag].append(prof)
                enorms.add(e)
        same = len(enorms) == 1
        ok = ok and same
        print("\n3D Sedov Q%d-Q%d, %d zones, %d steps, autotune %s, %d reps each: |e| %s %s" %
              (k, k - 1, n ** 3, steps, autotune, reps, ", ".join(sorted(enorms)),
               "(bitwise equal in every run)" if same else "DIFFERS"))
        print("  %-24s %12s %12s %8s %16s" % ("kernel", "before ms", "after ms", "ratio", "spread b / a"))
        names = [x for x in (res["before"][0] if res["before"] else {})]
        for name in names:
            b = [p[name] for p in res["before"] if name in p]
            f = [p[name] for p in res["after"] if name in p]
            if not b or not f:
                print("  %-24s missing in a run" % name)
                ok = False
                continue
            mb, ma = statistics.median(b), statistics.median(f)
            print("  %-24s %12.4f %12.4f %8.3f %7.3f / %6.3f" % (name, mb, ma, ma / mb if mb else float("nan"),
                                                               max(b) / min(b) if min(b) else 0,
                                                               max(f) / min(f) if min(f) else 0))
        sys.stdout.flush()
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
