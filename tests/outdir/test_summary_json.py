#!/usr/bin/env python3
"""summary.json as a program reads it, through the real executable.

usage: test_summary_json.py BLAST WORKDIR INPUTS

  * deck paths with a double quote, a backslash, a tab, non-ASCII letters and a byte that
    is not UTF-8: the summary is valid JSON (python's json), and its "deck" and "mesh"
    give the path back byte for byte (os.fsencode);
  * provenance: version and git id, the resolved deck (it parses back: --print-deck of it
    runs), the mesh source, cfl, t_final, the integrator, the units; the velocity errors
    L1, L2 and Linf of output.exact_error; the three setup-phase maps with the same keys;
    the materials (name, equation of state, gamma, p_inf);
  * bad input prints its message without the C traceback; BLAST_ERROR_TRACE=1 adds it;
  * --print-deck says what order_quadrature = -1 and assembly = default resolve to.
"""
import json
import os
import shutil
import subprocess
import sys


def main():
    blast, work, inputs = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    fails, passed = [], [0]

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
        (passed.__setitem__(0, passed[0] + 1) if ok else fails.append(what))

    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("BLAST_ERROR_TRACE", None)
    names = [b'quote"d', b"back\\slash", b"tab\there", "ünïcode-é".encode(), b"bad\xffbyte"]
    for i, name in enumerate(names):
        d = os.path.join(os.fsencode(work), b"d%d_" % i + name)
        os.makedirs(os.path.join(d, b"meshes"))
        shutil.copy(os.fsencode(os.path.join(inputs, "meshes", "square01_quad.mesh")),
                    os.path.join(d, b"meshes"))
        deck = os.path.join(d, name + b".ini")
        shutil.copy(os.fsencode(os.path.join(inputs, "taylor_green2d.ini")), deck)
        out = os.path.join(os.fsencode(work), b"o%d" % i)
        p = subprocess.run([os.fsencode(blast), deck, b"mesh.refine_serial=1",
                            b"time.t_final=0.05", b"output.exact_error=true",
                            b"output.dir=" + out], capture_output=True, env=env, timeout=300)
        what = "deck path %r" % name
        check(p.returncode == 0, "%s: exit 0 (got %d: %s)" % (what, p.returncode, p.stderr[:200]))
        try:
            with open(os.path.join(out, b"summary.json"), "rb") as f:
                s = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError) as e:
            check(False, "%s: summary.json is valid JSON (%s)" % (what, e))
            continue
        check(True, "%s: summary.json is valid JSON" % what)
        check(os.fsencode(s["deck"]) == deck, "%s: 'deck' gives the path back" % what)
        check(os.fsencode(s["mesh"]) == os.path.join(d, b"meshes", b"square01_quad.mesh"),
              "%s: 'mesh' gives the mesh file back" % what)
        check(s.get("materials") == [{"name": "gas", "eos": "ideal_gas", "gamma": 5.0 / 3.0,
                                      "p_inf": 0.0}],
              "%s: 'materials' is Taylor-Green's one gas (%r)" % (what, s.get("materials")))
        if i:
            continue
        for key in ("version", "git", "units", "ode_solver"):
            check(isinstance(s.get(key), str) and s[key], "provenance: '%s' = %r" % (key, s.get(key)))
        check(s.get("cfl") == 0.5 and s.get("t_final") == 0.05 and s.get("ode_solver") == "rk4",
              "provenance: cfl, t_final and the integrator")
        for key in ("velocity_error_l1", "velocity_error_l2", "velocity_error_linf"):
            v = s.get(key)
            check(isinstance(v, float) and 0 < v < 1, "exact_error: '%s' = %r" % (key, v))
        keys = [set(s[k]) for k in ("setup_phases_max", "setup_phases_cpu_max",
                                    "setup_phases_peak_rss_mb_max")]
        check(keys[0] == keys[1] == keys[2] and "mesh" in keys[0],
              "the three setup-phase maps have the same keys, 'mesh' among them")
        rdeck = os.path.join(work, "resolved.ini")
        with open(rdeck, "w") as f:
            f.write(s["deck_resolved"])
        check("[problem]" in s["deck_resolved"] and "name = taylor_green" in s["deck_resolved"],
              "the resolved deck names the problem")
        check("assembly = default  ; default: partial in 2D" in s["deck_resolved"] and
              "order_quadrature = -1  ; default: 3 order_kinematic + order_thermo - 1 = 6"
              in s["deck_resolved"], "the resolved deck says what the defaults resolve to")
        p = subprocess.run([blast, rdeck, "--print-deck"], capture_output=True, text=True, env=env)
        check(p.returncode == 0 and "name = taylor_green" in p.stdout,
              "the resolved deck parses back (--print-deck, exit %d)" % p.returncode)
    # A link left at the summary's temporary name is removed, never written through.
    victim = os.path.join(work, "victim.txt")
    with open(victim, "w") as f:
        f.write("not blast_gpu's\n")
    for i, over in enumerate((["output.overwrite=true"], [])):
        out = os.path.join(work, "link%d" % i)
        os.makedirs(out)
        os.symlink(victim, os.path.join(out, ".summary.json.tmp"))
        p = subprocess.run([blast, os.path.join(inputs, "sedov2d.ini"), "mesh.refine_serial=1",
                            "time.max_steps=2", "output.dir=" + out] + over,
                           capture_output=True, text=True, env=env)
        what = "a link at .summary.json.tmp%s" % (" (overwrite)" if over else "")
        with open(victim) as f:
            check(f.read() == "not blast_gpu's\n", "%s: its target unchanged" % what)
        if over:
            check(p.returncode == 0 and os.path.isfile(os.path.join(out, "summary.json")) and
                  not os.path.islink(os.path.join(out, "summary.json")) and
                  not os.path.lexists(os.path.join(out, ".summary.json.tmp")),
                  "%s: exit 0, summary.json a regular file, no temporary left" % what)
        else:  # the lone temporary marks a run that died writing its summary
            check(p.returncode == 2 and "holds the results of an earlier run" in p.stderr,
                  "%s: refused as an earlier run's (exit %d)" % (what, p.returncode))
    # The traceback: not for bad input, unless asked.
    for extra_env, want in (({}, False), ({"BLAST_ERROR_TRACE": "1"}, True)):
        for args in (["time.cfll=1"], ["mesh.file=" + os.path.join(work, "none.mesh")]):
            p = subprocess.run([blast, os.path.join(inputs, "sedov2d.ini")] + args,
                               capture_output=True, text=True, env=dict(env, **extra_env))
            what = "%s%s" % (" ".join(args)[:40], " with BLAST_ERROR_TRACE=1" if want else "")
            check(p.returncode == 2 and p.stderr.startswith("blast_gpu: error: "),
                  "%s: exit 2, the message first" % what)
            check(("raised at" in p.stderr) == want,
                  "%s: the traceback %s" % (what, "printed" if want else "left out"))
    # --print-deck: the notes of the resolved defaults (a 1D and a 3D mesh file).
    for deck, dim, mode in (("sod1d.ini", 1, "full"), ("sedov3d.ini", 3, "partial")):
        p = subprocess.run([blast, os.path.join(inputs, deck), "--print-deck"],
                           capture_output=True, text=True, env=env)
        check("assembly = default  ; default: %s in %dD" % (mode, dim) in p.stdout,
              "--print-deck %s: assembly resolves to %s" % (deck, mode))
    print("%d passed, %d failed" % (passed[0], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
