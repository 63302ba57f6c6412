#!/usr/bin/env python3
"""A restart continues the time-step control bit for bit.

After an accepted step the quadrature data at the new state are current, so the next
attempt's time-step estimate does not include them; a restart must continue the same way.
On Sedov 2D (4,096 zones, 2 ranks) the step after step 740 grows dt only if it does: a run
restarted from its checkpoint at step 740 must end at step 745 with the same t, dt, |e| and
energies as the uninterrupted run.

usage: test_restart_dt_control.py BLAST_GPU MPIEXEC WORKDIR SEDOV2D_DECK
"""
import json
import os
import shutil
import subprocess
import sys


def main():
    blast, mpiexec, work, deck = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    common = ["mesh.refine_serial=5", "time.max_steps=760", "output.print_every=100000",
              "checkpoint.at_end=false", "gpu.backend=cpu"]

    def run(out, *extra):
        cmd = [mpiexec, "-n", "2", "--oversubscribe", blast, deck, "output.dir=" + out] + common + list(extra)
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            sys.exit("FAIL: %s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
        with open(os.path.join(work, out, "summary.json")) as f:
            return json.load(f)

    a = run("whole", "checkpoint.steps=740")
    chk = os.path.join(work, "whole", "checkpoints", "chk_00000740.h5")
    b = run("restarted", "--restart", chk)
    keys = ["steps", "t", "dt", "e_norm", "energy_internal", "energy_kinetic", "energy_total"]
    bad = [k for k in keys if a.get(k) != b.get(k)]
    for k in keys:
        print("%-16s whole %-24r restarted %r" % (k, a.get(k), b.get(k)))
    if bad:
        sys.exit("FAIL: the restart from step 740 differs in %s" % ", ".join(bad))
    print("PASS: the restart from step 740 continues bit for bit")


if __name__ == "__main__":
    main()
