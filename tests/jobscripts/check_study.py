#!/usr/bin/env python3
"""jobscripts/local runs a small weak and a small strong study (3D Sedov Q2-Q1 box, a few
steps) on 1, 2 and 4 ranks; check the CSV files (3 rows each, sane numbers, efficiencies
recomputed here), the run folders (deck, environment, GPU info, git hash, command,
stdout/stderr, summary.json with its energy object) and the PNG files; then the driver's
refusals (a file mesh for weak scaling, earlier results without --overwrite).

    check_study.py REPO BLAST WORKDIR
"""
import csv
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok   " + what)
    else:
        failures += 1
        print("FAIL " + what, file=sys.stderr)


def num(row, key):
    try:
        v = float(row[key])
    except (KeyError, ValueError):
        return float("nan")
    return v


def check_png(path):
    try:
        with open(path, "rb") as f:
            head = f.read(24)
        size = os.path.getsize(path)
    except OSError as e:
        check(False, "%s readable (%s)" % (path, e))
        return
    ok = size > 100 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    w, h = struct.unpack(">II", head[16:24]) if len(head) == 24 else (0, 0)
    check(ok and w > 100 and h > 100, "%s is a PNG (%d bytes, %d x %d)" % (
        os.path.basename(path), size, w, h))


def check_csv(out, study, zones_of):
    path = os.path.join(out, study + ".csv")
    check(os.path.exists(path), "%s.csv written" % study)
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 3, "%s.csv: 3 rows (%d)" % (study, len(rows)))
    check([r.get("ranks") for r in rows] == ["1", "2", "4"], "%s.csv: ranks 1, 2, 4" % study)
    for key in ("energy_total_joules", "average_watts", "joules_per_zone_step", "energy_sources"):
        check(key in rows[0], "%s.csv: column %s" % (study, key))
    ref = None
    for r in rows:
        n = int(r["ranks"])
        tag = "%s np%d" % (study, n)
        check(r.get("status") == "ok", tag + ": status ok")
        sps, steps_s = num(r, "seconds_per_step"), num(r, "steps_seconds")
        attempts, zones = num(r, "step_attempts"), num(r, "zones")
        check(0 < sps < 60 and math.isfinite(sps), tag + ": seconds per step %g" % sps)
        check(attempts == STEPS, tag + ": %d step attempts" % attempts)
        check(abs(sps * attempts - steps_s) <= 1e-4 * steps_s, tag + ": s/step x attempts = steps s")
        check(zones == zones_of(n), tag + ": %d zones (expected %d)" % (zones, zones_of(n)))
        check(num(r, "zones_per_rank") == zones / n, tag + ": zones per rank")
        check(num(r, "h1_dofs") > zones, tag + ": h1 dofs")
        check(num(r, "wall_seconds") >= steps_s > 0, tag + ": wall >= steps time")
        check(num(r, "e_norm") > 0, tag + ": |e| > 0")
        check(r.get("threads") == "1" and r.get("backend") == "cpu", tag + ": 1 thread, cpu")
        # Efficiency recomputed: zone-steps per second per rank against the 1-rank run.
        rate = zones / sps
        if ref is None:
            ref = rate
        want = rate / ref / n
        eff = num(r, "efficiency")
        check(abs(eff - want) <= 1e-4 * want + 1e-6, tag + ": efficiency %.4g (recomputed %.4g)"
              % (eff, want))
        check(abs(num(r, "speedup") - rate / ref) <= 1e-4 * rate / ref + 1e-6, tag + ": speedup")
        d = os.path.join(out, r["run_dir"])
        for name in ("deck.ini", "env.txt", "gpu.txt", "git.txt", "command.txt", "stdout.txt",
                     "stderr.txt", "summary.json"):
            f = os.path.join(d, name)
            check(os.path.exists(f) and (name == "stderr.txt" or os.path.getsize(f) > 0),
                  tag + ": " + name)
        with open(os.path.join(d, "deck.ini")) as f:
            deck = f.read()
        check("[mesh]" in deck and "output" in deck, tag + ": deck.ini is the resolved deck")
        with open(os.path.join(d, "env.txt")) as f:
            env = f.read()
        check("OMP_NUM_THREADS=1" in env and "nproc:" in env, tag + ": env.txt")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        e = s.get("energy")
        check(isinstance(e, dict), tag + ": summary.json has an energy object")
        if isinstance(e, dict):
            keys = ("gpu_joules", "cpu_package_joules", "dram_joules", "total_joules",
                    "average_watts", "joules_per_zone_step", "seconds", "sources", "unavailable")
            check(all(k in e for k in keys), tag + ": energy keys")
            check(isinstance(e.get("unavailable"), list) and isinstance(e.get("sources"), list),
                  tag + ": energy sources and unavailable are lists")
            notes = e.get("unavailable") or []
            # The CPU backend reads no GPU; RAPL is measured or its absence explained.
            check(e.get("gpu_joules") is None and any(u.startswith("nvml:") for u in notes),
                  tag + ": GPU energy null, reason given")
            check(e.get("cpu_package_joules") is not None or any(u.startswith("rapl")
                                                                  for u in notes),
                  tag + ": RAPL measured or the reason given")
            if e.get("total_joules") is not None:
                check(e["total_joules"] >= 0 and e.get("average_watts") is not None,
                      tag + ": energy values")


def run(cmd, env):
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


STEPS = 2


def main():
    repo, blast, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out")
    env = dict(os.environ, BLAST=blast, OUT=out, RANKS="1 2 4", STEPS=str(STEPS),
               ZONES_PER_RANK="3", ELEMENTS="6 6 3", BACKEND="cpu")
    t0 = time.time()
    p = run([os.path.join(repo, "jobscripts", "local"), "all"], env)
    print(p.stdout)
    print(p.stderr, file=sys.stderr)
    check(p.returncode == 0, "jobscripts/local all: exit 0 (%d) in %.1f s"
          % (p.returncode, time.time() - t0))
    check_csv(out, "weak", lambda n: 27 * n)
    check_csv(out, "strong", lambda n: 108)
    for name in ("weak.png", "strong.png", "scaling.png"):
        check_png(os.path.join(out, name))

    # The driver refuses what it cannot do, before running anything.
    scaling = [sys.executable, os.path.join(repo, "tools", "scaling.py")]
    p = run(scaling + ["weak", "--blast", blast, "--out", os.path.join(work, "x"),
                       "--deck", os.path.join(repo, "inputs", "sedov3d.ini"), "--ranks", "1"], env)
    check(p.returncode == 2 and "box generator" in p.stderr,
          "weak scaling of a file mesh refused (%d: %s)" % (p.returncode, p.stderr.strip()[-120:]))
    p = run(scaling + ["strong", "--blast", blast, "--out", out, "--ranks", "1,2,4"], env)
    check(p.returncode == 2 and "already exists" in p.stderr,
          "earlier results kept without --overwrite (%d)" % p.returncode)
    p = run(scaling + ["strong", "--blast", blast, "--out", out, "--ranks", "1", "--",
                       "time.cfll=0.3"], env)
    check(p.returncode == 2 and "cfll" in p.stderr, "a bad override refused (%d)" % p.returncode)
    if failures:
        print("%d check(s) failed" % failures, file=sys.stderr)
        return 1
    print("check_study: all checks passed in %.1f s" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
