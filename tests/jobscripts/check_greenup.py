#!/usr/bin/env python3
"""tools/greenup on synthetic summaries with known times and energies: speedup, powerup and
greenup against values computed here from the definitions (Dong et al., IPDPS 2014); the
fallback to wall_seconds; a clear error, after the speedup, when an energy is missing.

    check_greenup.py REPO WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok   " + what)
    else:
        failures += 1
        print("FAIL " + what, file=sys.stderr)


def close(a, b, tol=1e-12):
    return isinstance(a, (int, float)) and abs(a - b) <= tol * abs(b)


def summary(path, steps_s, wall, energy, zones=1000, attempts=50):
    s = {"problem": "sedov", "zones": zones, "step_attempts": attempts, "steps": attempts,
         "wall_seconds": wall, "timing": {"steps_max": steps_s}}
    if energy is not None:
        s["energy"] = energy
    with open(path, "w") as f:
        json.dump(s, f)
    return path


def energy(gpu, pkg, dram, unavailable=()):
    parts = [x for x in (gpu, pkg, dram) if x is not None]
    total = sum(parts) if parts else None
    return {"gpu_joules": gpu, "cpu_package_joules": pkg, "dram_joules": dram,
            "total_joules": total, "sources": [], "unavailable": list(unavailable)}


def greenup(repo, *args):
    p = subprocess.run([sys.executable, os.path.join(repo, "tools", "greenup")] + list(args),
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    repo, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # CPU-only: 123.4 s, 2 packages + DRAM; hybrid: 15.6 s, GPUs + the same CPU parts.
    t_cpu, t_hyb = 123.4, 15.6
    e_cpu = 31000.25 + 4200.5
    e_hyb = 5400.75 + 2100.0 + 510.125
    cpu = summary(os.path.join(work, "cpu.json"), t_cpu, t_cpu + 3.0,
                  energy(None, 31000.25, 4200.5, ["nvml: GPU energy not measured"]))
    hyb = summary(os.path.join(work, "hybrid.json"), t_hyb, t_hyb + 9.0,
                  energy(5400.75, 2100.0, 510.125))
    speedup = t_cpu / t_hyb
    powerup = (e_cpu / t_cpu) / (e_hyb / t_hyb)
    green = e_cpu / e_hyb
    rc, out, err = greenup(repo, cpu, hyb, "--json")
    check(rc == 0, "greenup --json: exit 0 (%d) %s" % (rc, err.strip()))
    try:
        res = json.loads(out)
    except ValueError:
        res = {}
    check(close(res.get("speedup"), speedup), "speedup %s = %.12g" % (res.get("speedup"), speedup))
    check(close(res.get("powerup"), powerup), "powerup %s = %.12g" % (res.get("powerup"), powerup))
    check(close(res.get("greenup"), green), "greenup %s = %.12g" % (res.get("greenup"), green))
    check(close(res.get("greenup", 0), res.get("speedup", 0) * res.get("powerup", 0)),
          "greenup = speedup x powerup")
    check(close(res.get("cpu_watts"), e_cpu / t_cpu) and close(res.get("hybrid_watts"), e_hyb / t_hyb),
          "average powers")
    rc, out, err = greenup(repo, cpu, hyb)
    check(rc == 0 and "greenup = E_cpu / E_hybrid = %.4f" % green in out
          and "speedup = T_cpu / T_hybrid = %.4f" % speedup in out, "text output")

    # Without timing.steps_max: the wall time.
    cpu_w = summary(os.path.join(work, "cpu_wall.json"), None, 200.0, energy(None, 1000.0, None))
    hyb_w = summary(os.path.join(work, "hyb_wall.json"), None, 40.0, energy(300.0, 100.0, None))
    rc, out, err = greenup(repo, cpu_w, hyb_w, "--json")
    res = json.loads(out) if rc == 0 else {}
    check(close(res.get("speedup"), 5.0) and close(res.get("greenup"), 2.5)
          and close(res.get("powerup"), 0.5), "wall-time fallback: 5, 0.5, 2.5 (%s)" % res)

    # Missing energy: the speedup, then a clear error with the run's own reasons.
    none = summary(os.path.join(work, "no_energy.json"), t_hyb, t_hyb,
                   energy(None, None, None, ["nvml: libnvidia-ml.so.1 not found",
                                             "rapl: /sys/class/powercap: not present"]))
    rc, out, err = greenup(repo, cpu, none)
    check(rc == 1 and "speedup = T_cpu / T_hybrid = %.4f" % speedup in out,
          "missing energy: speedup still printed, exit 1 (%d)" % rc)
    check("no energy measurement" in err and "libnvidia-ml.so.1 not found" in err,
          "missing energy: reason given: " + err.strip())
    old = summary(os.path.join(work, "old.json"), t_hyb, t_hyb, None)
    rc, out, err = greenup(repo, old, hyb)
    check(rc == 1 and "no \"energy\" object" in err, "summary without energy object: " + err.strip())
    rc, out, err = greenup(repo, cpu)
    check(rc == 2, "bad usage: exit 2 (%d)" % rc)
    rc, out, err = greenup(repo, cpu, os.path.join(work, "absent.json"))
    check(rc == 2 and "cannot read" in err, "unreadable file: exit 2 (%d)" % rc)
    # Different work: a warning.
    other = summary(os.path.join(work, "other.json"), t_hyb, t_hyb, energy(5.0, 1.0, 1.0), zones=8)
    rc, out, err = greenup(repo, cpu, other)
    check(rc == 0 and "different work" in err, "different problem sizes flagged")

    if failures:
        print("%d check(s) failed" % failures, file=sys.stderr)
        return 1
    print("check_greenup: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
