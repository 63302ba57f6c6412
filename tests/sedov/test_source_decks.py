#!/usr/bin/env python3
"""The source decks against the built-in decks they restate, and bad source decks.

- inputs/sedov2d_custom.ini and sedov3d_custom.ini ([source.blast] energy, point at the
  origin) next to sedov2d.ini and sedov3d.ini for a few steps, 1 and 2 ranks: the
  built-in's bits in summary.json (t, dt, steps, energies, |e|, CG iterations).
- inputs/taylor_green2d_custom.ini (velocity, pressure, the heating as [source.heating]
  power, [exact] velocity) next to taylor_green2d.ini with [output] exact_error, both on
  8x8 zones to t = 0.75: |e| and the velocity errors (L1, L2, Linf) within 1e-12 relative
  (the state differs from the built-in's by round-off: the heating is integrated on the
  host instead of inside the kernels).
- inputs/sedov_disc2d.ini for 5 steps: the total energy is the source's 1 (1e-14), kept.
- Bad decks: a source point outside the mesh, a power expression that does not parse, a
  [source.*] section on a built-in problem: exit 2, the deck line, the section and key,
  nothing written (the sha1 of every file under the work folder is the same).

usage: test_source_decks.py BLAST MPIEXEC WORK INPUTS
"""
import hashlib, json, os, shutil, subprocess, sys

blast, mpiexec, work, inputs = sys.argv[1:5]
failures = []
KEYS_BITS = ("t", "dt", "steps", "step_attempts", "e_norm", "e_norm_initial", "dt_initial",
             "energy_internal", "energy_kinetic", "energy_total", "energy_total_initial",
             "cg_iterations")


def run(deck, out, ranks, steps, extra=()):
    """blast_gpu on deck (a few steps, or steps = 0: to t_final)."""
    cmd = [blast, deck, "time.max_steps=%d" % (steps if steps else -1), "output.dir=" + out,
           "output.print_every=1000", "checkpoint.at_end=false"] + list(extra)
    if ranks > 1:
        cmd = [mpiexec, "-n", str(ranks), "--oversubscribe"] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL", msg)
    return cond


def rel(a, b):
    return abs(a - b) / abs(a) if a else abs(b)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
# deck, steps, extra arguments of both runs; Taylor-Green on 8x8 zones to t = 0.75
PAIRS = [("sedov2d", 20, ()), ("sedov3d", 5, ()),
         ("taylor_green2d", 0, ("mesh.refine_serial=2",))]
for deck, steps, extra in PAIRS:
    for ranks in (1, 2):
        res = {}
        for kind in ("builtin", "custom"):
            name = deck + ("_custom" if kind == "custom" else "") + ".ini"
            out = os.path.join(work, "%s_%s_np%d" % (deck, kind, ranks))
            more = ("output.exact_error=true",) if kind == "builtin" and deck.startswith("taylor") else ()
            p = run(os.path.join(inputs, name), out, ranks, steps, extra + more)
            if check(p.returncode == 0, "%s np%d: exit %d\n%s" % (name, ranks, p.returncode,
                                                                 p.stderr[-2000:])):
                with open(os.path.join(out, "summary.json")) as f:
                    res[kind] = json.load(f)
        if len(res) < 2:
            continue
        a, b = res["builtin"], res["custom"]
        check(b["problem"] == "custom", "%s: problem %s" % (deck, b["problem"]))
        check(a["steps"] == b["steps"] and a["steps"] >= 3 and (steps or a["t"] == 0.75),
              "%s np%d: steps %s and %s" % (deck, ranks, a["steps"], b["steps"]))
        if deck.startswith("sedov"):
            for k in KEYS_BITS:
                check(a[k] == b[k], "%s np%d: %s = %r and %r" % (deck, ranks, k, a[k], b[k]))
            print("%-15s np%d: %d steps, |e| %.15e, the built-in's bits" % (deck, ranks, a["steps"],
                                                                             a["e_norm"]))
            continue
        check(rel(a["e_norm"], b["e_norm"]) <= 1e-12, "%s np%d: |e| %r and %r"
              % (deck, ranks, a["e_norm"], b["e_norm"]))
        for k, tol in (("velocity_error_l2", 1e-12), ("velocity_error_l1", 1e-12),
                       ("velocity_error_linf", 1e-12)):
            x, y = a.get(k), b.get(k)
            if check(x is not None and y is not None, "%s np%d: %s missing" % (deck, ranks, k)):
                check(rel(x, y) <= tol, "%s np%d: %s %r and %r (relative %.2e > %.0e)"
                      % (deck, ranks, k, x, y, rel(x, y), tol))
        print("%-15s np%d: %d steps, |e| relative difference %.2e, velocity L2 error %.12e "
              "(built-in %.12e)" % (deck, ranks, a["steps"], rel(a["e_norm"], b["e_norm"]),
                                    b["velocity_error_l2"], a["velocity_error_l2"]))

# The disc deck (the full blast, E = 1, at the centre of an unstructured disc with a wall
# rim): a few steps, the energy deposited and kept (test_sedov_disc runs it to t = 0.6).
for ranks in (1, 2):
    out = os.path.join(work, "sedov_disc2d_np%d" % ranks)
    p = run(os.path.join(inputs, "sedov_disc2d.ini"), out, ranks, 5)
    if check(p.returncode == 0, "sedov_disc2d np%d: exit %d\n%s" % (ranks, p.returncode,
                                                                  p.stderr[-2000:])):
        with open(os.path.join(out, "summary.json")) as f:
            d = json.load(f)
        check(abs(d["energy_total_initial"] - 1.0) <= 1e-14 and abs(d["energy_total"] - 1.0) <= 1e-13,
              "sedov_disc2d np%d: energy %r, initially %r, expected 1" % (ranks, d["energy_total"],
                                                                         d["energy_total_initial"]))
        print("sedov_disc2d    np%d: %d steps, total energy %.17g (initially %.17g)"
              % (ranks, d["steps"], d["energy_total"], d["energy_total_initial"]))


def tree_sha1(root):
    out = {}
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha1(f.read()).hexdigest()
    return out


def deck_text(name):
    with open(os.path.join(inputs, name)) as f:
        return f.read().replace("meshes/", os.path.join(inputs, "meshes") + "/")


BAD = [
    # name, the good deck, (old, new) replacements, texts the message must hold
    ("outside", "sedov2d_custom.ini", [("point = 0 0", "point = 1.5 0.5")],
     ["[source.blast] point", "outside the mesh"]),
    ("outside3d", "sedov3d_custom.ini", [("point = 0 0 0", "point = 0.5 0.5 -0.01")],
     ["[source.blast] point", "outside the mesh"]),
    ("power_syntax", "taylor_green2d_custom.ini",
     [("power = 3*pi/8*(", "power = 3*pi/8*((")], ["[source.heating] power", "column"]),
    ("builtin_source", "sedov2d.ini", [("[mesh]", "[source.blast]\nenergy = 1\npoint = 0 0\n\n[mesh]")],
     ["[source.blast]", "custom"]),
]
bad_dir = os.path.join(work, "bad")
os.makedirs(bad_dir)
for name, good, repl, want in BAD:
    text = deck_text(good)
    for old, new in repl:
        check(old in text, "bad deck %s: '%s' not in %s" % (name, old, good))
        text = text.replace(old, new, 1)
    deck = os.path.join(bad_dir, "bad_%s.ini" % name)
    with open(deck, "w") as f:
        f.write(text)
    before = tree_sha1(work)
    for ranks in (1, 2):
        p = run(deck, os.path.join(bad_dir, "out_" + name), ranks, 5)
        msg = p.stdout + p.stderr
        check(p.returncode == 2, "bad deck %s np%d: exit %d, expected 2\n%s"
              % (name, ranks, p.returncode, msg[-1500:]))
        check("bad_%s.ini:" % name in msg, "bad deck %s np%d: no deck line in\n%s"
              % (name, ranks, msg[-1500:]))
        for w in want:
            check(w in msg, "bad deck %s np%d: '%s' not in\n%s" % (name, ranks, w, msg[-1500:]))
        check(tree_sha1(work) == before, "bad deck %s np%d: files written" % (name, ranks))
    line = [l for l in msg.splitlines() if "bad_%s.ini:" % name in l]
    print("bad %-15s exit %d: %s" % (name, p.returncode, line[0].strip() if line else ""))

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
