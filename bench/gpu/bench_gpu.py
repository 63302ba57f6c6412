#!/usr/bin/env python3
"""GPU benchmark of blast_gpu, run on the GPU node from the project root:

    source .gpu-bundle/env.sh && python3 bench/gpu/bench_gpu.py BLAST PEAKS OUTDIR [parts] [orders]

parts (default peaks, scale, cpu, mps): those and cusparse; orders (default 2,3): the kinematic orders of
the scale and cpu cases. Prints tables; writes OUTDIR/bench.json.
 - peaks: device copy bandwidth and DGEMM rate (the roofline ceilings)
 - scale: 3D Sedov Q2-Q1 and Q3-Q2 from 1.4e4 to 1.1e6 zones on one GPU: time per step,
          figures of merit, memory per zone, and a per-kernel profile (BLAST_GPU_PROFILE)
 - cpu:   the same code with the CPU backend on all cores (1 rank x N threads and N ranks
          x 1 thread), for the speedup
 - mps:   1, 2, 4, 8 ranks sharing the GPU, without and with MPS
 - cusparse: the largest Q2-Q1 case again with gpu.spmv=cusparse (with scale)
"""
import json, os, re, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
DECK = os.path.join(HERE, "sedov3d_box.ini")

def sh(cmd, env=None, timeout=900):
    e = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    e.update(env or {})
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)
    return p, time.time() - t0

def run_case(blast, out, tag, n, k, rp, steps, ranks=1, threads=16, backend="cuda", extra=(), env=None,
             autotune="cached"):
    d = os.path.join(out, tag)
    args = ["mpirun", "-n", str(ranks), "--oversubscribe", "--bind-to", "none", blast, DECK,
            "mesh.elements=%d %d %d" % (n, n, n), "mesh.refine_parallel=%d" % rp,
            "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1), "time.max_steps=%d" % (steps - 1),
            "output.print_every=100000", "output.dir=" + d, "output.overwrite=true", "checkpoint.at_end=false",
            "gpu.backend=" + backend, "gpu.autotune=" + autotune] + list(extra)
    e = {"OMP_NUM_THREADS": str(threads)}
    e.update(env or {})
    p, wall = sh(args, e)
    log = p.stdout + p.stderr
    with open(d + ".log", "w") as f:
        f.write(log)
    if p.returncode != 0:
        print("  %s failed (exit %d): %s" % (tag, p.returncode, log[-600:]))
        return None
    s = json.load(open(os.path.join(d, "summary.json")))
    mem = re.search(r"GPU memory\s+([0-9.]+) GiB .*?, ([0-9.]+) KB per zone", log)
    prof = re.findall(r"^\s+(k_\w+ \([^)]*\)|mass SpMV \(9\)|k_dot_dd|vector ops)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", log, re.M)
    r = {"tag": tag, "zones": s["zones"], "h1_dofs": s["h1_dofs"], "k": k, "ranks": ranks, "threads": threads,
         "backend": backend, "attempts": s["step_attempts"], "step_s": s["timing"]["steps_max"] / s["step_attempts"],
         "cg_iterations": s["cg_iterations"], "fom": s["fom"], "wall": wall,
         "mem_gib": float(mem.group(1)) if mem else None, "kb_per_zone": float(mem.group(2)) if mem else None,
         "profile": [dict(kernel=p[0], calls=int(p[1]), ms=float(p[2]), ms_call=float(p[3]), gbs=float(p[4]),
                          gflops=float(p[5])) for p in prof]}
    return r

def main():
    if any(a in ("-h", "--help") for a in sys.argv[1:]) or len(sys.argv) < 4:
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    blast, peaks, out = sys.argv[1], sys.argv[2], sys.argv[3]
    parts = sys.argv[4].split(",") if len(sys.argv) > 4 else ["peaks", "scale", "cpu", "mps"]
    orders = [int(k) for k in sys.argv[5].split(",")] if len(sys.argv) > 5 else [2, 3]
    os.makedirs(out, exist_ok=True)
    res = {"machine": {}, "scale": [], "cpu": [], "mps": []}
    p, _ = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm", "--format=csv,noheader"])
    res["machine"]["gpu"] = p.stdout.strip()
    p, _ = sh(["bash", "-c", "lscpu | grep 'Model name'; nproc"])
    res["machine"]["cpu"] = " ".join(p.stdout.split())
    print("GPU:", res["machine"]["gpu"], "| CPU:", res["machine"]["cpu"])
    if "peaks" in parts:
        p, _ = sh([peaks])
        print(p.stdout.strip())
        bw = re.search(r"copy bandwidth.*?: ([0-9.]+) GB/s", p.stdout)
        dg = re.search(r"DGEMM.*?: ([0-9.]+) GFLOP/s", p.stdout)
        res["peaks"] = {"copy_gbs": float(bw.group(1)) if bw else None, "dgemm_gflops": float(dg.group(1)) if dg else None}
    # tune once per order (online), then every timed run uses the cached choice
    for k in orders:
        run_case(blast, out, "tune_q%d" % k, 24, k, 0, 60, autotune="online")
    cases = [c for c in [(2, 24, 0, 20), (2, 24, 1, 20), (2, 26, 2, 10), (3, 16, 0, 20), (3, 16, 1, 10), (3, 24, 1, 6)]
             if c[0] in orders]
    if "scale" in parts:
        print("\n%-14s %9s %10s %9s %9s %9s %9s %9s" % ("case", "zones", "H1 dofs", "ms/step", "KB/zone",
                                                         "FOM", "FOM_cg", "FOM_qd"))
        for (k, n, rp, steps) in cases:
            r = run_case(blast, out, "gpu_q%d_%d_rp%d" % (k, n, rp), n, k, rp, steps)
            if not r:
                continue
            rp_ = run_case(blast, out, "prof_q%d_%d_rp%d" % (k, n, rp), n, k, rp, min(steps, 6),
                           env={"BLAST_GPU_PROFILE": "1"})
            r["profile"] = rp_["profile"] if rp_ else []
            res["scale"].append(r)
            if (k, n, rp) == (2, 26, 2) and "cusparse" in parts:  # the cuSPARSE alternative
                rc = run_case(blast, out, "gpu_q2_26_rp2_cusparse", n, k, rp, steps, extra=["gpu.spmv=cusparse"])
                if rc:
                    rc["spmv"] = "cusparse"
                    res["scale"].append(rc)
                    print("  (gpu.spmv=cusparse: %.2f ms/step, FOM_cg %.0f)" % (1e3 * rc["step_s"], rc["fom"]["cg_h1"]))
            print("%-14s %9d %10d %9.2f %9.2f %9.0f %9.0f %9.0f" % (r["tag"][4:], r["zones"], r["h1_dofs"],
                  1e3 * r["step_s"], r["kb_per_zone"] or 0, r["fom"]["major_kernels"], r["fom"]["cg_h1"],
                  r["fom"]["update_quad_data"]))
            for q in r["profile"]:
                print("      %-24s %7d calls %9.4f ms/call %8.1f GB/s %9.1f GFLOP/s" % (q["kernel"], q["calls"],
                      q["ms_call"], q["gbs"], q["gflops"]))
            sys.stdout.flush()
    if "cpu" in parts:
        print("\nCPU backend on all cores vs one GPU (same problem, same steps):")
        ncpu = os.cpu_count() or 1
        for (k, n, rp, steps) in [c for c in [(2, 24, 1, 4), (3, 16, 1, 3)] if c[0] in orders]:
            g = run_case(blast, out, "cmp_gpu_q%d" % k, n, k, rp, steps)
            c1 = run_case(blast, out, "cmp_cpu_threads_q%d" % k, n, k, rp, steps, backend="cpu", threads=ncpu)
            c2 = run_case(blast, out, "cmp_cpu_ranks_q%d" % k, n, k, rp, steps, ranks=ncpu, threads=1, backend="cpu")
            for r in (g, c1, c2):
                if r:
                    res["cpu"].append(r)
            if g and (c1 or c2):
                best = min(x["step_s"] for x in (c1, c2) if x)
                print("  Q%d-Q%d %d zones %d H1 dofs: GPU %.1f ms/step, CPU 1x%d thr %s, %dx1 ranks %s -> speedup %.1fx"
                      % (k, k - 1, g["zones"], g["h1_dofs"], 1e3 * g["step_s"], ncpu,
                         "%.1f ms" % (1e3 * c1["step_s"]) if c1 else "-", ncpu, "%.1f ms" % (1e3 * c2["step_s"]) if c2 else "-",
                         best / g["step_s"]))
            sys.stdout.flush()
            json.dump(res, open(os.path.join(out, "bench.json"), "w"), indent=1)
    if "mps" in parts:
        print("\nRanks sharing one GPU (Q2-Q1, 110592 zones), ms/step:")
        for mps in (0, 1):
            if mps:
                sh(["nvidia-cuda-mps-control", "-d"])
                time.sleep(2)
            for ranks in (1, 2, 4, 8):
                r = run_case(blast, out, "mps%d_np%d" % (mps, ranks), 24, 2, 1, 8, ranks=ranks, threads=2)
                if r:
                    r["mps"] = mps
                    res["mps"].append(r)
                    print("  %s %d ranks: %.1f ms/step" % ("MPS   " if mps else "no MPS", ranks, 1e3 * r["step_s"]))
                sys.stdout.flush()
            if mps:
                subprocess.run(["bash", "-c", "echo quit | nvidia-cuda-mps-control"])
        json.dump(res, open(os.path.join(out, "bench.json"), "w"), indent=1)
    json.dump(res, open(os.path.join(out, "bench.json"), "w"), indent=1)

if __name__ == "__main__":
    main()
