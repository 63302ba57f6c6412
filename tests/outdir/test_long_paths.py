#!/usr/bin/env python3
"""Paths up to the documented limit (1023 characters), through the real executable.

usage: test_long_paths.py BLAST MPIEXEC WORKDIR DECK

  * [output] dir of 190, 500 and 1000 characters (1 and 2 ranks), with checkpoints and
    visualization dumps: the run ends with exit 0, its summary, checkpoints and dumps are
    where they belong; a restart from the 500-character folder's checkpoint continues it;
  * a deck whose [mesh] file line holds a 600-character path (longer than inih's own
    200-character lines) runs;
  * [output] dir of 1023 characters: refused (exit 2) naming [output] dir, since its
    default [checkpoint] dir would pass the limit; of 1100 characters: refused naming the
    command-line argument; nothing is written in either case.
"""
import json
import os
import shutil
import subprocess
import sys


def long_dir(root, n):
    """A path of exactly n characters below root, in components of up to 99 characters."""
    parts, rest = [], n - len(root) - 1
    while rest > 0:
        k = min(99, rest if rest <= 99 else 99 if rest - 100 != 0 else 98)
        parts.append("d" * k)
        rest -= k + 1
    p = os.path.join(root, "/".join(parts))
    assert len(p) == n, (len(p), n)
    return p


def main():
    blast, mpiexec, work, deck = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    fails, passed = [], [0]

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
        (passed.__setitem__(0, passed[0] + 1) if ok else fails.append(what))

    def run(np, args):
        cmd = ([mpiexec, "-n", str(np), "--oversubscribe"] if np > 1 else []) + [blast] + args
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)

    base = ["mesh.refine_serial=1", "time.max_steps=4", "checkpoint.steps=2",
            "output.viz_steps=2", "output.print_every=100"]
    for n in (190, 500, 1000):
        for np in (1, 2):
            root = os.path.join(work, "r%d_%d" % (n, np))
            out = long_dir(root, n)
            p = run(np, [deck, "output.dir=" + out] + base)
            what = "[output] dir of %d characters, %d rank(s)" % (n, np)
            check(p.returncode == 0, "%s: exit 0 (got %d: %s)" % (what, p.returncode,
                                                                  p.stderr[:300]))
            ok = os.path.isfile(os.path.join(out, "summary.json"))
            check(ok, "%s: summary.json written" % what)
            if ok:
                with open(os.path.join(out, "summary.json")) as f:
                    s = json.load(f)
                check(s["completed"] and s["checkpoint"].startswith(out + "/checkpoints/"),
                      "%s: completed, its checkpoint in <dir>/checkpoints" % what)
                check(os.path.isfile(s["viz"]) and s["viz"].startswith(out + "/viz/"),
                      "%s: its dumps in <dir>/viz" % what)
            if n == 500 and ok:
                chk = os.path.join(out, "checkpoints", "chk_00000004.h5")
                p = run(np, [deck, "output.dir=" + out, "mesh.refine_serial=1",
                             "time.max_steps=6", "checkpoint.steps=2", "output.viz_steps=2",
                             "--restart", chk])
                check(p.returncode == 0 and "restarted from " + chk in p.stdout,
                      "%s: restart from %s (exit %d)" % (what, chk[-40:], p.returncode))
    # A deck line longer than inih's buffer.
    mdir = long_dir(os.path.join(work, "m"), 580)
    os.makedirs(mdir)
    shutil.copy(os.path.join(os.path.dirname(deck), "meshes", "square01_quad.mesh"), mdir)
    ldeck = os.path.join(work, "long.ini")
    with open(ldeck, "w") as f:
        f.write("[problem]\nname = sedov\n\n[mesh]\nfile = %s/square01_quad.mesh   ; long\n"
                "refine_serial = 1\n\n[time]\nt_final = 0.01\n" % mdir)
    p = run(1, [ldeck, "output.dir=" + os.path.join(work, "long_out")])
    check(p.returncode == 0, "a deck line of %d characters: exit 0 (got %d: %s)" % (
        len(mdir) + 37, p.returncode, p.stderr[:300]))
    # Over the limit: refused, naming what the user set, nothing written.
    for n, texts in ((1023, ["[output] dir '", "(1023 characters) is too long for the default "
                             "[checkpoint] dir", "shorten [output] dir, or set [checkpoint] dir"]),
                     (1100, ["command line argument 2 ('output.dir=", "the value is too long"])):
        root = os.path.join(work, "x%d" % n)
        out = long_dir(root, n)
        p = run(1, [deck, "output.dir=" + out] + base)
        what = "[output] dir of %d characters" % n
        check(p.returncode == 2, "%s: exit 2 (got %d)" % (what, p.returncode))
        for t in texts:
            check(t in p.stderr, "%s: the message holds '%s'" % (what, t))
        check(not os.path.exists(root), "%s: nothing written" % what)
    print("%d passed, %d failed" % (passed[0], len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
