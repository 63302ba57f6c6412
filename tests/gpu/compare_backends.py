#!/usr/bin/env python3
"""One blast_gpu case run with [gpu] backend = cpu and = cuda: the same bits.

    compare_backends.py --blast EXE --mpiexec MPIEXEC --work DIR [--ranks N]
                        [--cuda-override KEY=VALUE ...] DECK [KEY=VALUE ...]

Runs DECK with the overrides on N ranks (default 1) twice in WORK, with gpu.backend=cpu
and gpu.backend=cuda, each to the end of its max_steps. Their summary.json must agree bit
for bit (the file prints 17 significant digits, so equal parsed doubles are equal bits) in
steps, step_attempts, steps_repeated, t, dt, e_norm, energy_internal, energy_kinetic,
energy_total, cg_iterations and zones, and name the backend each ran on ("cpu", "cuda on
<GPU> ..."). The final
checkpoints' state (x, v, e; at_end) must be equal byte for byte where h5py imports (the
states are then printed as checked; without h5py only summary.json is compared, and the
line says so). --cuda-override (repeatable) adds an override to the cuda run only (e.g.
gpu.halo_transport=device, which the CPU backend refuses). With --gpus-needed N and fewer
GPUs on this node (nvidia-smi -L), the cuda run must refuse instead: exit status 2 and
the text of --refusal in its output (a transport that needs a GPU per rank). With
--expect-resident the cuda run must also have solved the momentum equation resident on the
GPUs, every solve (summary.json: cg_solves_resident = cg_solves > 0). Standard library
otherwise. Exit status 0 when the two runs agree (or the refusal is as expected).
"""
import argparse
import json
import os
import subprocess
import sys
import time

FIELDS = ("steps", "step_attempts", "steps_repeated", "t", "dt", "e_norm", "energy_internal",
          "energy_kinetic", "energy_total", "cg_iterations", "zones")


def launch(args, n, backend):
    """The run's output directory and its finished process."""
    out = os.path.join(args.work, "%d_%s" % (n, backend))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    extra = args.cuda_override if backend == "cuda" else []
    cmd = [args.mpiexec, "-n", str(args.ranks), "--oversubscribe", "--bind-to", "none",
           args.blast, args.deck] + args.overrides + extra + [
        "gpu.backend=" + backend, "output.dir=" + out, "output.overwrite=true",
        "output.print_every=100000", "output.viz_steps=0", "checkpoint.at_end=true"]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=540)
    print("run:  %s\n      exit %d, %.1f s" % (" ".join(cmd), p.returncode, time.time() - t0))
    return out, p


def gpu_count():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in p.stdout.splitlines() if line.startswith("GPU "))


def run(args, n, backend):
    out, p = launch(args, n, backend)
    if p.returncode != 0:
        print(p.stdout[-3000:], p.stderr[-3000:])
        return None
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def states(summary):
    """The x, v, e datasets of the run's final checkpoint (None without h5py)."""
    try:
        import h5py
    except ImportError:
        return None
    with h5py.File(summary["checkpoint"], "r") as f:
        return {k: f[k][...].tobytes() for k in ("x", "v", "e")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blast", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--cuda-override", action="append", default=[],
                    help="a KEY=VALUE override of the cuda run only (repeatable)")
    ap.add_argument("--gpus-needed", type=int, default=0,
                    help="GPUs the cuda run needs; with fewer it must refuse (--refusal)")
    ap.add_argument("--refusal", default="", help="text of the cuda run's refusal")
    ap.add_argument("--expect-resident", action="store_true",
                    help="every momentum solve of the cuda run resident on the GPUs")
    ap.add_argument("--backends", default="cpu,cuda", help=argparse.SUPPRESS)  # cpu,cpu: a dry run
    ap.add_argument("deck")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    want = args.backends.split(",")
    ngpu = gpu_count()
    if ngpu < args.gpus_needed:
        _, p = launch(args, 1, "cuda")
        text = p.stdout + p.stderr
        ok = p.returncode == 2 and args.refusal in text
        if not ok:
            print(p.stdout[-3000:], p.stderr[-3000:])
        print("compare_backends: %s: %d GPU(s) here, %d needed: the cuda run %s (exit %d)"
              % ("PASS" if ok else "FAIL", ngpu, args.gpus_needed,
                 "refused as expected" if ok else "did not refuse with %r" % args.refusal,
                 p.returncode))
        return 0 if ok else 1
    rc, rg = run(args, 0, want[0]), run(args, 1, want[1])
    if rc is None or rg is None:
        print("compare_backends: FAIL (a run failed)")
        return 1
    bad = []
    # summary.json's backend: "cpu", "cuda on <GPU> (sm_XY, N GiB), ..." (app/backend_select.c)
    names = [str(rc.get("backend")), str(rg.get("backend"))]
    if not (names[0].split(" ")[0] == want[0] and names[1].split(" ")[0] == want[1]):
        bad.append("backends %r and %r (want %s)" % (names[0], names[1], want))
    print("      backends         %s | %s" % tuple(names))
    for k in FIELDS:
        if rc.get(k) != rg.get(k) or k not in rc:
            bad.append("%s: cpu %r, cuda %r" % (k, rc.get(k), rg.get(k)))
        print("      %-16s %s %-24r %s %r" % (k, want[0], rc.get(k), want[1], rg.get(k)))
    if args.expect_resident:
        n, res = rg.get("cg_solves"), rg.get("cg_solves_resident")
        print("      cg_solves        %s %r, resident on the GPUs %r" % (want[1], n, res))
        if not (isinstance(n, int) and n > 0 and res == n):
            bad.append("the cuda run solved %r of its %r momentum solves resident, not all" % (res, n))
    sc, sg = states(rc), states(rg)
    if sc is None:
        note = "summary.json only (no h5py: the checkpoints' states were not compared)"
    else:
        note = "summary.json and the final state (x, v, e: %d bytes)" % sum(map(len, sc.values()))
        bad += ["checkpoint state %s differs" % k for k in sc if sc[k] != sg[k]]
    for b in bad:
        print("FAIL  " + b)
    print("compare_backends: %s: %s" % ("FAIL (%d)" % len(bad) if bad else "PASS, bitwise", note))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
