#!/usr/bin/env python3
"""The shipped custom decks against the built-in decks they restate, and bad custom decks.

Each inputs/<deck>_custom.ini runs next to inputs/<deck>.ini for a few steps on 1 and 2
ranks; the piecewise-constant problems (Sod, triple point 2D and 3D) must give the
built-in's bits in summary.json (t, dt, steps, energies, |e|, CG iterations), the
expression decks (Gresho, Riemann 12 and 6, Rayleigh-Taylor) |e| within 1e-12 relative.
Bad custom decks exit with 2, name the deck line and the section and key, and write
nothing (the sha1 of every file under the work folder is the same before and after).

usage: test_custom_decks.py BLAST MPIEXEC WORK INPUTS
"""
import hashlib, json, os, shutil, subprocess, sys

blast, mpiexec, work, inputs = sys.argv[1:5]
inputs = os.path.abspath(inputs)
failures = []
KEYS_BITS = ("t", "dt", "steps", "step_attempts", "e_norm", "e_norm_initial", "dt_initial",
             "energy_internal", "energy_kinetic", "energy_total", "energy_total_initial",
             "cg_iterations")
# deck, steps, tolerance on |e| (0: every key of KEYS_BITS identical)
PAIRS = [("sod1d", 30, 0.0), ("triple_point2d", 20, 0.0), ("triple_point3d", 8, 0.0),
         ("gresho2d", 15, 1e-12), ("riemann12_2d", 15, 1e-12), ("riemann6_2d", 15, 1e-12),
         ("rayleigh_taylor2d", 15, 1e-12)]


def run(deck, out, ranks, extra=()):
    cmd = [blast, deck, "time.max_steps=%d" % extra[0], "output.dir=" + out,
           "output.print_every=1000", "checkpoint.at_end=false"] if extra else [blast, deck]
    if ranks > 1:
        cmd = [mpiexec, "-n", str(ranks), "--oversubscribe"] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL", msg)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
for deck, steps, tol in PAIRS:
    for ranks in (1, 2):
        res = {}
        for kind in ("builtin", "custom"):
            name = deck + ("_custom" if kind == "custom" else "") + ".ini"
            out = os.path.join(work, "%s_%s_np%d" % (deck, kind, ranks))
            p = run(os.path.join(inputs, name), out, ranks, (steps,))
            check(p.returncode == 0, "%s np%d: exit %d\n%s" % (name, ranks, p.returncode,
                                                              p.stderr[-2000:]))
            if p.returncode == 0:
                with open(os.path.join(out, "summary.json")) as f:
                    res[kind] = json.load(f)
        if len(res) < 2:
            continue
        a, b = res["builtin"], res["custom"]
        check(b["problem"] == "custom", "%s: problem %s" % (deck, b["problem"]))
        check(a["steps"] == b["steps"] and a["steps"] >= 3,
              "%s np%d: steps %s and %s" % (deck, ranks, a["steps"], b["steps"]))
        rel = abs(a["e_norm"] - b["e_norm"]) / abs(a["e_norm"])
        if tol == 0.0:
            for k in KEYS_BITS:
                check(a[k] == b[k], "%s np%d: %s = %r and %r" % (deck, ranks, k, a[k], b[k]))
        else:
            check(rel <= tol, "%s np%d: |e| %r and %r (relative %.2e > %.0e)"
                  % (deck, ranks, a["e_norm"], b["e_norm"], rel, tol))
        print("%-18s np%d: %d steps, |e| %.15e, relative difference %.2e%s"
              % (deck, ranks, a["steps"], a["e_norm"], rel, " (bits)" if tol == 0.0 else ""))

# ---- bad custom decks: a change to sod1d_custom.ini each --------------------------------
with open(os.path.join(inputs, "sod1d_custom.ini")) as f:
    good = f.read().replace("meshes/", os.path.join(inputs, "meshes") + "/")
BAD = [
    # name, (old, new) replacements, texts the message must hold
    ("no_zone", [("[boundary.ends]", "[region.none]\nmaterial = gas\nselect = box 2 3\n"
                  "density = 1\npressure = 1\n\n[boundary.ends]")],
     ["[region.none] select", "selects no zone"]),
    ("negative_density", [("density = 0.1", "density = 1 - 2*x")],
     ["[region.right] density", "density is -", "at (0."]),
    ("nan_density", [("density = 0.1", "density = sqrt(0.7 - x)")],
     ["[region.right] density", "nan at (0."]),
    ("negative_pressure", [("pressure = 0.1", "pressure = -0.1")],
     ["[region.right] pressure", "specific internal energy is -"]),
    ("velocity_count", [("pressure = 0.1", "pressure = 0.1\nvelocity = 0 0")],
     ["[region.right] velocity", "2 values on a 1D mesh"]),
    ("select_count", [("select = box 0.5 1", "select = box 0.5 0 1 1")],
     ["[region.right] select", "box takes 2 numbers", "got 4"]),
    ("gravity_count", [("name = custom", "name = custom\ngravity = 0 -1")],
     ["[problem] gravity", "2 values on a 1D mesh"]),
    ("unknown_material", [("material = gas\nselect = box", "material = water\nselect = box")],
     ["water"]),
    ("syntax", [("density = 0.1", "density = 0.1 +* x")], ["[region.right] density", "column"]),
]


def tree_sha1(root):
    out = {}
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha1(f.read()).hexdigest()
    return out


bad_dir = os.path.join(work, "bad")
os.makedirs(bad_dir)
for name, repl, want in BAD:
    text = good
    for old, new in repl:
        check(old in text, "bad deck %s: '%s' not in the good deck" % (name, old))
        text = text.replace(old, new, 1)
    deck = os.path.join(bad_dir, "bad_%s.ini" % name)
    with open(deck, "w") as f:
        f.write(text)
    before = tree_sha1(work)
    for ranks in (1, 2):
        p = run(deck, os.path.join(bad_dir, "out_" + name), ranks, (5,))
        msg = p.stdout + p.stderr
        check(p.returncode == 2, "bad deck %s np%d: exit %d, expected 2\n%s"
              % (name, ranks, p.returncode, msg[-1500:]))
        check("bad_%s.ini:" % name in msg, "bad deck %s np%d: no deck line in\n%s"
              % (name, ranks, msg[-1500:]))
        for w in want:
            check(w in msg, "bad deck %s np%d: '%s' not in\n%s" % (name, ranks, w, msg[-1500:]))
        check(tree_sha1(work) == before, "bad deck %s np%d: files written" % (name, ranks))
    line = [l for l in (p.stderr + p.stdout).splitlines() if "bad_%s.ini:" % name in l]
    print("bad %-18s exit %d: %s" % (name, p.returncode, line[0].strip() if line else ""))

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
