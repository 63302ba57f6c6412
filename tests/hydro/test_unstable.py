#!/usr/bin/env python3
"""A CFL number beyond the integrator's stable range, through the real executable.

usage: test_unstable.py BLAST MPIEXEC WORKDIR INPUTS

Each case runs a shipped Sedov deck with a CFL number far above the stable range of its
integrator (docs/robustness.md: 0.5 euler; 1 rk2, rk3ssp, rk6; 1.5 rk4; 2 rk2avg), on 1
and 2 ranks, and asserts: the start-up warning names the key, the integrator and its
range; the run stops with exit 3 and one error line naming [time] max_energy_change and
the CFL number within 200 steps (the energy is checked every 64), instead of crawling on
with ever smaller steps. The bound is on steps, not seconds: a sanitizer build runs many
times slower. The 3D case runs the deck's mesh one refinement coarser (4^3 zones) to keep
the test short. A run inside the range (rk2avg at its limit, 2) gets no warning and ends
with exit 0, its energy conserved; [time] max_energy_change = 0.01 stops a correct euler
run whose energy error (about 2 %) exceeds it, naming the step.
"""
import os
import re
import shutil
import subprocess
import sys


def main():
    blast, mpiexec, work, inputs = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    fails, passed = [], [0]

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
        if not ok:
            fails.append(what)
        else:
            passed[0] += 1

    def run(np, deck, extra, name):
        cmd = ([mpiexec, "-n", str(np), "--oversubscribe"] if np > 1 else []) + [
            blast, os.path.join(inputs, deck), "output.dir=" + os.path.join(work, name),
            "output.print_every=1000000"] + extra
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)

    cases = [("sedov2d.ini", "rk4", "5", "1.5"), ("sedov2d.ini", "euler", "2", "0.5"),
             ("sedov2d.ini", "rk3ssp", "3", "1"), ("sedov2d.ini", "rk2", "3", "1"),
             ("sedov3d.ini", "rk4", "5", "1.5"), ("sedov2d.ini", "rk2avg", "4", "2")]
    for i, (deck, ode, cfl, stable) in enumerate(cases):
        for np in (1, 2):
            what = "%s %s cfl=%s, %d rank(s)" % (deck, ode, cfl, np)
            coarse = ["mesh.refine_serial=1"] if deck == "sedov3d.ini" else []
            p = run(np, deck, ["time.ode_solver=" + ode, "time.cfl=" + cfl] + coarse,
                    "u%d_%d" % (i, np))
            check(p.returncode == 3, "%s: exit 3 (got %d)" % (what, p.returncode))
            warn = "warning: [time] cfl = %s is above the range in which %s is stable (up to %s" % (
                cfl, ode, stable)
            check(p.stdout.count(warn) == 1, "%s: one start-up warning '%s'" % (what, warn))
            errs = [l for l in p.stderr.splitlines() if l.startswith("blast_gpu: error")]
            check(len(errs) == 1, "%s: one error line (got %d)" % (what, len(errs)))
            msg = errs[0] if errs else ""
            # rk2avg conserves the energy to round-off while its steps shrink: it stops on
            # the energy check or on the time-step collapse, whichever comes first.
            texts = ([] if ode == "rk2avg" else
                     ["the total energy has changed by +", "more than [time] max_energy_change = "
                      "0.5", "It stops here"])
            texts.append("[time] cfl = %s is above the range in which %s is stable (up to %s): "
                         "lower it" % (cfl, ode, stable))
            for text in texts:
                check(text in msg, "%s: the message holds '%s'" % (what, text))
            # "It stops here (N steps" / "stops at the last accepted state (N steps"
            m = re.search(r"\((\d+) steps, t = ", msg)
            steps = int(m.group(1)) if m else -1
            check(0 < steps <= 200, "%s: stopped after %d steps (<= 200)" % (what, steps))
    # Inside the range: no warning, exit 0.
    for np in (1, 2):
        p = run(np, "sedov2d.ini", ["time.ode_solver=rk2avg", "time.cfl=2", "time.t_final=0.1"],
                "ok_%d" % np)
        check(p.returncode == 0, "rk2avg cfl=2, %d rank(s): exit 0 (got %d)" % (np, p.returncode))
        check("warning: [time] cfl" not in p.stdout, "rk2avg cfl=2, %d rank(s): no warning" % np)
    # A tighter bound stops a correct but inexact run (euler changes the energy by ~2 %).
    p = run(1, "sedov2d.ini", ["time.ode_solver=euler", "time.max_energy_change=0.01"], "tight")
    check(p.returncode == 3, "euler, max_energy_change=0.01: exit 3 (got %d)" % p.returncode)
    check("more than [time] max_energy_change = 0.01" in p.stderr and
          "lower [time] cfl = 0.5" in p.stderr,
          "euler, max_energy_change=0.01: the message names the bound and the CFL number")
    check("warning: [time] cfl" not in p.stdout, "euler cfl=0.5: no warning")
    print("%d passed, %d failed" % (passed[0], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
