#!/usr/bin/env python3
"""bench/gpu/latency.py on the CPU backend: its options, the numbers of row b against each
run's own summary.json, and the rows it must skip.

    check_latency.py REPO BLAST WORKDIR

1. --help exits 0 with the usage; an unknown option exits 2 naming it.
2. --quick --rows b --backend cpu --steps 1 with --baseline (the same binary): exit 0;
   latency.csv has for both cases (8^3 and 16^3 zones) the time steps = timing.steps_max of
   the run's summary.json, 2 step attempts (time.max_steps=1 ends with attempt 2), ms per
   attempt = 1000 x steps_max / 2, new/old = the quotient of the two summaries, the same |e|.
3. --rows d,e --mpirun none: both skipped (one rank only), exit 0, no run folder.
4. --rows b without --backend where nvidia-smi fails: skipped (no GPU visible), exit 0.
"""
import csv
import json
import os
import shutil
import stat
import subprocess
import sys

repo, blast, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
script = os.path.join(repo, "bench", "gpu", "latency.py")
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def run(args, env=None):
    p = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout + p.stderr


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

rc, out = run(["--help"])
check(rc == 0 and "usage: latency.py" in out and "--baseline" in out, "--help: exit 0 and the usage")
rc, out = run(["--blast", blast, "--no-such-option"])
check(rc == 2 and "--no-such-option" in out, "an unknown option: exit 2 naming it")

d = os.path.join(work, "b")
rc, out = run(["--blast", blast, "--baseline", blast, "--quick", "--rows", "b", "--backend", "cpu", "--steps", "1",
              "--out", d])
check(rc == 0 and "PASS" in out, "row b on the CPU: exit 0 (%s)" % out.strip().splitlines()[-1:])
table = rows_of(os.path.join(d, "latency.csv")) if os.path.exists(os.path.join(d, "latency.csv")) else []
for n in (8, 16):
    s = {}
    for w in ("new", "old"):
        with open(os.path.join(d, "b%d_%s_rep1" % (n, w), "summary.json")) as f:
            s[w] = json.load(f)
    check(s["new"]["zones"] == n ** 3 and s["new"]["step_attempts"] == 2 and s["new"]["ranks"] == 1,
          "%d^3: the run has %d zones, 2 step attempts, 1 rank" % (n, n ** 3))
    mine = [r for r in table if r["case"].startswith("{:,} zones".format(n ** 3))]
    steps = [r for r in mine if r["quantity"] == "time steps s (2 attempts)"]
    per = [r for r in mine if r["quantity"] == "ms per step attempt"]
    check(len(steps) == 1 and len(per) == 1, "%d^3: a time-steps line and an ms-per-attempt line" % n)
    if steps and per:
        t_new, t_old = s["new"]["timing"]["steps_max"], s["old"]["timing"]["steps_max"]
        r = steps[0]
        check(float(r["blast"]) == t_new and float(r["baseline"]) == t_old,
              "%d^3: time steps = the summaries' timing.steps_max (%s, %s)" % (n, r["blast"], r["baseline"]))
        check(abs(float(r["new_over_old"]) - t_new / t_old) <= 1e-12 * t_new / t_old,
              "%d^3: new/old = the quotient of the two" % n)
        check(r["same_e"] == str(s["new"]["e_norm"] == s["old"]["e_norm"]) and r["same_e"] == "True",
              "%d^3: the same |e| bits for the two binaries" % n)
        check(abs(float(per[0]["blast"]) - 1e3 * t_new / 2) <= 1e-12 * t_new,
              "%d^3: ms per attempt = 1000 x steps_max / 2 (%s)" % (n, per[0]["blast"]))

d = os.path.join(work, "skip")
rc, out = run(["--blast", blast, "--quick", "--rows", "d,e", "--backend", "cpu", "--mpirun", "none", "--out", d])
table = rows_of(os.path.join(d, "latency.csv")) if os.path.exists(os.path.join(d, "latency.csv")) else []
check(rc == 0 and sorted(r["row"] for r in table) == ["d", "e"] and
      all(r["quantity"] == "skipped: --mpirun none starts one rank only" for r in table),
      "rows d and e with --mpirun none: skipped, exit 0")
check(sorted(os.listdir(d)) == ["latency.csv"], "nothing ran: no run folder")

bindir = os.path.join(work, "bin")
os.makedirs(bindir)
smi = os.path.join(bindir, "nvidia-smi")
with open(smi, "w") as f:
    f.write("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
os.chmod(smi, os.stat(smi).st_mode | stat.S_IXUSR)
env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
d = os.path.join(work, "nogpu")
rc, out = run(["--blast", blast, "--quick", "--rows", "b", "--out", d], env)
table = rows_of(os.path.join(d, "latency.csv")) if os.path.exists(os.path.join(d, "latency.csv")) else []
check(rc == 0 and len(table) == 2 and all(r["quantity"].startswith("skipped: no GPU visible") for r in table),
      "row b without --backend cpu and without a GPU: skipped, exit 0")

print("%d failure%s" % (failures, "" if failures == 1 else "s"))
sys.exit(1 if failures else 0)
