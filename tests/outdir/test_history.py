#!/usr/bin/env python3
"""history.csv ([output] history_steps, [probe.NAME]) of Sod runs (1D, 64 zones, t = 0.05).

usage: test_history.py BLAST_GPU MPIEXEC WORKDIR MESH

- the rows: the start, every N accepted steps, the end (steps from summary.json); the mass
  constant (0.55 to round-off); the last row's energies those of summary.json; min det J /
  det J0 1 at the start and in (0, 1) once the shock compresses; aspect ratio 1 (1D);
- probes in the two static regions (x = 0.05 and x = 0.95: the waves are inside
  [0.44, 0.6] at t = 0.05) read the initial data: rho, p, e = p / (0.4 rho), v = 0;
- 2 ranks: the same rows (energies to 1e-13: their sums are per rank);
- the progress line shows min |J|/|J0|;
- a probe outside the mesh: exit 2 naming [probe.NAME] and its deck line, nothing written;
- a restart continuing its run's folder: the lines after its checkpoint are replaced, and the
  file equals an uninterrupted run's, byte for byte;
- a folder holding only a history.csv is an earlier run's result: refused without
  [output] overwrite, replaced with it.
"""
import csv, json, os, shutil, subprocess, sys

blast, mpiexec, work, mesh = sys.argv[1:5]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMP_NUM_THREADS="1")
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL", msg)


def deck(name, probes, extra=""):
    """A Sod deck; probes: [(name, point)]. Returns (path, {probe name: its section's line})."""
    lines = ["[problem]", "name = sod", "[mesh]", "file = " + mesh, "refine_serial = 5",
             "[time]", "t_final = 0.05", "ode_solver = rk4", "[output]", "print_every = 20"]
    lines += extra.splitlines()
    where = {}
    for pname, point in probes:
        lines += ["", "[probe.%s]" % pname]
        where[pname] = len(lines)
        lines += ["point = %s" % point]
    path = os.path.join(work, name + ".ini")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, where


def run(args, ranks=1):
    cmd = ([mpiexec, "-n", str(ranks), "--oversubscribe"] if ranks > 1 else []) + [blast] + args
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    return p.returncode, p.stdout, p.stderr


def rows(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], [[float(v) if v else None for v in row] for row in r[1:]]


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
N = 25
sod, _ = deck("sod", [("right", "0.95"), ("left", "0.05")])
out1 = os.path.join(work, "np1")
rc, out, err = run([sod, "output.dir=" + out1, "output.history_steps=%d" % N])
check(rc == 0, "Sod run: rc %d\n%s" % (rc, err))
check("min |J|/|J0| = " in out, "the progress line shows min |J|/|J0|")
summary = json.load(open(os.path.join(out1, "summary.json")))
head, data = rows(os.path.join(out1, "history.csv"))
want = ["step", "t", "dt", "mass", "momentum_x", "internal_energy", "kinetic_energy",
        "total_energy", "min_jacobian_ratio", "max_aspect_ratio"]
for p in ("right", "left"):
    want += ["probe.%s.%s" % (p, q) for q in ("density", "pressure", "specific_energy",
                                              "velocity_x")]
check(head == want, "header %s" % head)
col = {name: i for i, name in enumerate(head)}
steps = summary["steps"]
expect = [0] + list(range(N, steps + 1, N)) + ([steps] if steps % N else [])
check([int(r[0]) for r in data] == expect, "row steps %s, expected %s" % ([r[0] for r in data],
                                                                          expect))
for r in data:
    check(abs(r[col["mass"]] - 0.55) <= 1e-14, "mass %r at step %d" % (r[col["mass"]], r[0]))
    check(r[col["mass"]] == data[0][col["mass"]], "mass changes at step %d" % r[0])
    check(r[col["max_aspect_ratio"]] == 1.0, "aspect ratio in 1D")
    for p, rho, pr in (("right", 0.1, 0.1), ("left", 1.0, 1.0)):
        vals = [r[col["probe.%s.%s" % (p, q)]] for q in ("density", "pressure",
                                                          "specific_energy", "velocity_x")]
        ok = all(v is not None for v in vals) and abs(vals[0] - rho) <= 1e-12 * rho and \
            abs(vals[1] - pr) <= 1e-12 * pr and abs(vals[2] - pr / (0.4 * rho)) <= 1e-12 and \
            abs(vals[3]) <= 1e-12
        check(ok, "probe %s at step %d: %s (expected %g %g %g 0)" % (p, r[0], vals, rho, pr,
                                                                     pr / (0.4 * rho)))
last = data[-1]
check(last[col["t"]] == summary["t"], "last row t %r, summary %r" % (last[col["t"]], summary["t"]))
for c, k in (("internal_energy", "energy_internal"), ("kinetic_energy", "energy_kinetic"),
             ("total_energy", "energy_total")):
    check(last[col[c]] == summary[k], "last row %s %r, summary.json %r" % (c, last[col[c]],
                                                                           summary[k]))
check(abs(data[0][col["total_energy"]] - summary["energy_total_initial"]) <=
      1e-14 * summary["energy_total_initial"], "first row's total energy")
check(data[0][col["min_jacobian_ratio"]] == 1.0 and data[0][col["momentum_x"]] == 0.0,
      "initial mesh: min det J / det J0 = 1, at rest")
check(0.0 < last[col["min_jacobian_ratio"]] < 0.9, "the shock compresses: %r" %
      last[col["min_jacobian_ratio"]])

# 2 ranks: the same rows.
out2 = os.path.join(work, "np2")
rc, out, err = run([sod, "output.dir=" + out2, "output.history_steps=%d" % N], ranks=2)
check(rc == 0, "Sod on 2 ranks: rc %d\n%s" % (rc, err))
if rc == 0:
    head2, data2 = rows(os.path.join(out2, "history.csv"))
    check(head2 == head and len(data2) == len(data), "2 ranks: header and row count")
    for a, b in zip(data, data2):
        for name, i in col.items():
            tol = 1e-13 * abs(a[i]) if "energy" in name else 0.0
            check(a[i] is not None and abs(a[i] - b[i]) <= tol,
                  "2 ranks, step %d, %s: %r against %r" % (a[0], name, b[i], a[i]))

# A probe outside the mesh: exit 2 with the section and its line, nothing written.
bad, where = deck("outside", [("right", "0.95"), ("far", "1.5")])
outb = os.path.join(work, "outside")
rc, out, err = run([bad, "output.dir=" + outb, "output.history_steps=5"])
msg = "%s:%d: [probe.far] point = (1.5) is outside the mesh" % (bad, where["far"])
check(rc == 2 and msg in err, "probe outside: rc %d, stderr %r (expected %r)" % (rc, err, msg))
check(not os.path.exists(outb), "probe outside: %s was created" % outb)

# A restart that continues its run's folder: the same file as an uninterrupted run.
M = 10
full = os.path.join(work, "full")
rc, _, err = run([sod, "output.dir=" + full, "output.history_steps=%d" % M])
check(rc == 0, "uninterrupted run: rc %d\n%s" % (rc, err))
cont = os.path.join(work, "cont")
common = [sod, "output.dir=" + cont, "output.history_steps=%d" % M, "checkpoint.steps=30",
          "checkpoint.keep=5"]
rc, _, err = run(common + ["time.max_steps=45"])
check(rc == 0, "first part: rc %d\n%s" % (rc, err))
chk = os.path.join(cont, "checkpoints", "chk_00000030.h5")
rc, out, err = run(common + ["--restart", chk])
check(rc == 0 and "later dropped" in out, "restart: rc %d\n%s%s" % (rc, out, err))
a = open(os.path.join(full, "history.csv")).read()
b = open(os.path.join(cont, "history.csv")).read() if rc == 0 else ""
check(a == b, "the restarted history differs from the uninterrupted one:\n%s\n---\n%s" % (a, b))

# A folder with only a history.csv holds an earlier run's result.
old = os.path.join(work, "old")
os.makedirs(old)
with open(os.path.join(old, "history.csv"), "w") as f:
    f.write("an earlier run's history\n")
rc, out, err = run([sod, "output.dir=" + old])
check(rc == 2 and "history.csv" in err and "overwrite" in err, "earlier history.csv: rc %d %r"
      % (rc, err))
check(open(os.path.join(old, "history.csv")).read() == "an earlier run's history\n",
      "the earlier history.csv was touched")
rc, out, err = run([sod, "output.dir=" + old, "output.overwrite=true", "output.history_steps=50"])
check(rc == 0 and open(os.path.join(old, "history.csv")).readline().startswith("step,t,"),
      "overwrite replaces the earlier history.csv: rc %d" % rc)

print("test_history: %s" % ("PASS" if not failures else "%d failures" % failures))
sys.exit(1 if failures else 0)
