#!/usr/bin/env python3
"""End-to-end MPI checks of blast_gpu (standard library only).

  run_ranks.py independence BLAST MPIEXEC OUTDIR DECK RANKS... -- [key=value ...]
      Runs DECK on each rank count; step count and dt must be identical and |e| within
      1e-12 relative of the 1-rank run.
  run_ranks.py independence-bits BLAST MPIEXEC OUTDIR DECK RANKS... -- [key=value ...]
      The same, and every rank count gives the 1-rank run's bits: steps, attempts, dt, |e|
      and the internal, kinetic and total energies equal as doubles (rank-independent
      reductions: double-double sums rounded once).
  run_ranks.py expect-fail BLAST MPIEXEC OUTDIR NRANKS CODE REGEX DECK [key=value ...]
      The run must end (no hang) with exit code CODE (or any non-zero if CODE is 'nonzero')
      and stderr matching REGEX. The environment may carry BLAST_FAULT_INJECT.
"""
import json, os, re, subprocess, sys

def mpirun(mpiexec, n, args, timeout=300):
    cmd = [mpiexec, "-n", str(n), "--oversubscribe"] + args
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)

BITS_KEYS = ("dt", "e_norm", "energy_internal", "energy_kinetic", "energy_total")

def independence(blast, mpiexec, outdir, deck, rest, bits=False):
    ranks, overrides = [], []
    for a in rest:
        if a == "--":
            continue
        (overrides if "=" in a else ranks).append(a)
    results = {}
    for n in ranks:
        out = os.path.join(outdir, "np%s" % n)
        p = mpirun(mpiexec, int(n), [blast, deck, "output.dir=" + out, "output.overwrite=true",
                                     "output.print_every=100000"] + overrides)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-3000:])
            sys.exit("FAIL: %s ranks exited with %d" % (n, p.returncode))
        with open(os.path.join(out, "summary.json")) as f:
            results[n] = json.load(f)
    ref = results[ranks[0]]
    ok = True
    for n in ranks:
        r = results[n]
        rel = abs(r["e_norm"] - ref["e_norm"]) / abs(ref["e_norm"])
        same_dt = "%.6f" % r["dt"] == "%.6f" % ref["dt"] and abs(r["dt"] - ref["dt"]) <= 1e-12 * ref["dt"]
        line = "%-3s ranks: steps %d attempts %d dt %.15e |e| %.16e rel diff %.2e" % (
            n, r["steps"], r["step_attempts"], r["dt"], r["e_norm"], rel)
        bad = r["steps"] != ref["steps"] or r["step_attempts"] != ref["step_attempts"] or not same_dt or rel > 1e-12
        if bits:
            differ = [k for k in BITS_KEYS if r[k].hex() != ref[k].hex()]
            if differ:
                line += "   bits differ: %s" % " ".join("%s %s vs %s" % (k, r[k].hex(), ref[k].hex()) for k in differ)
                bad = True
        # timings over ranks: 0 <= min <= max per phase; the CG's waits are part of the CG
        # (of each rank's, so the largest wait is at most the largest CG time), none on 1 rank
        t = r["timing"]
        for k in ("qdata_force", "force_actions", "cg", "steps", "cg_wait"):
            if not 0 <= t[k + "_min"] <= t[k + "_max"]:
                line += "   timing %s min %g max %g" % (k, t[k + "_min"], t[k + "_max"])
                bad = True
        if t["cg_wait_max"] > t["cg_max"] or (int(n) == 1 and t["cg_wait_max"] != 0):
            line += "   cg_wait %g outside the CG time %g" % (t["cg_wait_max"], t["cg_max"])
            bad = True
        print(line + ("   <-- FAIL" if bad else ""))
        ok = ok and not bad
    sys.exit(0 if ok else "FAIL: results depend on the rank count, or the timings are inconsistent")

def expect_fail(blast, mpiexec, outdir, n, code, regex, deck, overrides):
    try:
        p = mpirun(mpiexec, int(n), [blast, deck, "output.dir=" + outdir, "output.overwrite=true"] + overrides,
                   timeout=120)
    except subprocess.TimeoutExpired:
        sys.exit("FAIL: the job hung (no exit within 120 s)")
    print("exit code", p.returncode)
    print(p.stderr[-2000:])
    if code == "nonzero":
        if p.returncode == 0:
            sys.exit("FAIL: expected a non-zero exit")
    elif p.returncode != int(code):
        sys.exit("FAIL: expected exit code %s" % code)
    if not re.search(regex, p.stderr):
        sys.exit("FAIL: stderr does not match %r" % regex)
    print("PASS")

if __name__ == "__main__":
    mode = sys.argv[1]
    if mode in ("independence", "independence-bits"):
        independence(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:],
                     bits=mode == "independence-bits")
    elif mode == "expect-fail":
        expect_fail(*sys.argv[2:9], sys.argv[9:])
    else:
        sys.exit(__doc__)
