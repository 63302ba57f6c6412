#!/usr/bin/env python3
"""End-to-end checkpoint/restart of blast_gpu, through the real executable.

usage: test_restart.py BLAST MPIEXEC WORKDIR DECK_SEDOV2D DECK_TAYLOR_GREEN2D DECK_SEDOV3D
                       CHK_SET_MATERIALS

Every comparison is against an uninterrupted run of the same deck on 2 ranks (A):
  - a run that writes a checkpoint every S steps (stop, write, continue) ends bitwise as A;
  - restart from step S on the same 2 ranks ends bitwise as A;
  - restart 1 -> 3 ranks and 4 -> 2 ranks (re-partitioned) agree with A to 1e-12 relative;
  - SIGKILL in the middle of a checkpoint write (test hook BLAST_TEST_KILL_IN_CHECKPOINT)
    leaves the previous checkpoint intact: the restart from it ends bitwise as A;
  - a NaN injected mid-run (BLAST_FAULT_INJECT) stops it with exit 3 and a checkpoint of the
    last good state, whose restart ends bitwise as A;
  - SIGTERM to the ranks (as Slurm sends it) and SIGUSR1 to mpirun (forwarded) stop the run
    after a final checkpoint (exit 0, summary "completed": false); its restart ends bitwise
    as A;
  - corrupt or foreign checkpoints (truncated, altered value, wrong format version, missing
    dataset, not HDF5, missing, other problem, other order, other dimension, other [fem]
    assembly, other materials: a parameter, the equation of state, a name; other problem
    sections) give exit 2 and a message naming the reason, and leave the output directory and
    the file unchanged; a restart in the checkpoint's own assembly mode works.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

BLAST, MPIEXEC, WORK, SEDOV2D, TG2D, SEDOV3D, SET_MATERIALS = sys.argv[1:8]
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
ENV.pop("BLAST_TEST_KILL_IN_CHECKPOINT", None)
COMMON = ["time.t_final=0.1", "output.print_every=20"]
S = 40  # checkpoint interval (accepted steps)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def cmd(n, deck, out, *extra):
    return [MPIEXEC, "-n", str(n), "--oversubscribe", BLAST, deck, "output.dir=" + out] + COMMON + list(extra)


def run(n, deck, out, *extra, env=None, expect=0):
    p = subprocess.run(cmd(n, deck, out, *extra), capture_output=True, text=True, env=env or ENV,
                       timeout=300)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-3000:], p.stderr[-3000:])
        sys.exit("FAIL: %s exited with %d, expected %d" % (" ".join(p.args), p.returncode, expect))
    return p


def path(*parts):
    return os.path.join(WORK, *parts)


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def fields(chk):
    with h5py.File(chk, "r") as f:
        return {k: np.array(f[k]) for k in ("x", "v", "e")}, dict(f.attrs)


def final_chk(out):
    s = summary(out)
    return s["checkpoint"]


def same_bits(a, b, what):
    fa, aa = fields(a)
    fb, ab = fields(b)
    ok = all(np.array_equal(fa[k], fb[k]) for k in fa) and aa["t"] == ab["t"] and aa["steps"] == ab["steps"]
    check(ok, "%s: final state bitwise equal (%s vs %s)" % (what, os.path.basename(a), os.path.basename(b)))


def close(a, b, what, tol=1e-12):
    fa, aa = fields(a)
    fb, ab = fields(b)
    rel = max(np.max(np.abs(fa[k] - fb[k])) / max(np.max(np.abs(fb[k])), 1e-300) for k in fa)
    check(rel <= tol and aa["steps"] == ab["steps"],
          "%s: final state within %.0e relative (max %.2e, steps %d vs %d)" % (what, tol, rel, aa["steps"], ab["steps"]))


def snapshot(d):
    snap = {}
    for root, _, files in os.walk(d):
        for fn in files:
            p = os.path.join(root, fn)
            st = os.stat(p)
            with open(p, "rb") as f:
                snap[os.path.relpath(p, d)] = (st.st_size, st.st_mtime_ns, hashlib.sha1(f.read()).hexdigest())
    return snap


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)

    # A: uninterrupted; B: checkpoints every S steps (the run stops, writes, continues).
    run(2, SEDOV2D, path("A"))
    ref = final_chk(path("A"))
    check(summary(path("A"))["completed"] is True, "A: summary says completed")
    run(2, SEDOV2D, path("B"), "checkpoint.steps=%d" % S, "checkpoint.keep=100")
    same_bits(final_chk(path("B")), ref, "periodic checkpoints")
    chkB = path("B", "checkpoints", "chk_%08d.h5" % S)
    check(os.path.exists(chkB), "B: checkpoint of step %d exists" % S)
    nB = len([f for f in os.listdir(path("B", "checkpoints")) if f.startswith("chk_")])
    run(2, SEDOV2D, path("K"), "checkpoint.steps=%d" % S)
    nK = sorted(os.listdir(path("K", "checkpoints")))
    check(len(nK) == 2, "keep = 2 leaves 2 checkpoints (%s; %d with keep = 100)" % (nK, nB))

    # Same ranks: bitwise.
    run(2, SEDOV2D, path("C"), "--restart", chkB)
    same_bits(final_chk(path("C")), ref, "restart 2 -> 2 ranks")
    sc = summary(path("C"))
    check(sc["restart_from"] == chkB and sc["restart_steps"] == S, "C: summary names the restart")

    # Re-partitioned: 1 -> 3 and 4 -> 2 ranks.
    for n_from, n_to in ((1, 3), (4, 2)):
        tag = "r%dto%d" % (n_from, n_to)
        run(n_from, SEDOV2D, path(tag + "_a"), "checkpoint.steps=%d" % S, "checkpoint.keep=100",
            "time.max_steps=%d" % (S + 5))
        chk = path(tag + "_a", "checkpoints", "chk_%08d.h5" % S)
        run(n_to, SEDOV2D, path(tag + "_b"), "checkpoint.restart=" + chk)
        close(final_chk(path(tag + "_b")), ref, "restart %d -> %d ranks" % (n_from, n_to))

    # SIGKILL in the middle of writing the checkpoint of step 2S.
    env = dict(ENV, BLAST_TEST_KILL_IN_CHECKPOINT=str(2 * S))
    p = run(2, SEDOV2D, path("D"), "checkpoint.steps=%d" % S, env=env, expect=None)
    check(p.returncode != 0, "D: killed run exits non-zero (%d)" % p.returncode)
    names = sorted(os.listdir(path("D", "checkpoints")))
    check("chk_%08d.h5" % S in names and "chk_%08d.h5" % (2 * S) not in names,
          "D: previous checkpoint intact, the interrupted one not published (%s)" % names)
    run(2, SEDOV2D, path("D"), "--restart", path("D", "checkpoints", "chk_%08d.h5" % S))
    same_bits(final_chk(path("D")), ref, "restart after SIGKILL during a checkpoint write")

    # A numerical failure (NaN injected into rank 1's state at step 2S) with checkpointing
    # on: exit 3, a checkpoint of the last good state, and its restart ends bitwise as A.
    env = dict(ENV, BLAST_FAULT_INJECT="1:nan:%d" % (2 * S))
    p = run(2, SEDOV2D, path("N"), env=env, expect=None)
    names = sorted(f for f in os.listdir(path("N", "checkpoints")) if f.startswith("chk_"))
    check(p.returncode == 3 and len(names) == 1 and "non-finite" in p.stderr,
          "N: NaN stops the run with exit %d and one checkpoint %s" % (p.returncode, names))
    if len(names) == 1:
        last_good = path("N", "checkpoints", names[0])
        _, attrs = fields(last_good)
        check(0 < attrs["steps"] < 2 * S + 1, "N: the checkpoint is of an accepted step before the fault (%d)" % attrs["steps"])
        run(2, SEDOV2D, path("N"), "--restart", last_good)
        same_bits(final_chk(path("N")), ref, "restart from the last good state after a NaN")

    # SIGTERM to the ranks, SIGUSR1 to mpirun.
    for sig, tag, to_mpirun in ((signal.SIGTERM, "E", False), (signal.SIGUSR1, "F", True)):
        out = path(tag)
        p = subprocess.Popen(cmd(2, SEDOV2D, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=ENV)
        for line in p.stdout:
            if line.startswith("step"):
                break
        if to_mpirun:
            p.send_signal(sig)
        else:
            pids = subprocess.run(["pgrep", "-f", "output.dir=" + out], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                try:
                    with open("/proc/%s/comm" % pid) as f:
                        if f.read().strip() == "blast_gpu":
                            os.kill(int(pid), sig)
                except OSError:
                    pass
        rest, err = p.communicate(timeout=120)
        name = signal.Signals(sig).name
        check(p.returncode == 0, "%s: exit 0 after %s (got %d)" % (tag, name, p.returncode))
        if p.returncode != 0:
            print(rest[-2000:], err[-2000:])
            continue
        s = summary(out)
        check(s["completed"] is False and s["stopped_by"] == name and os.path.exists(s["checkpoint"]),
              "%s: %s gives a final checkpoint and completed = false (%s)" % (tag, name, s["checkpoint"]))
        check("--restart" in rest, "%s: the run says how to continue" % tag)
        run(2, SEDOV2D, out, "--restart", s["checkpoint"])
        same_bits(final_chk(out), ref, "restart after %s" % name)

    # Refused checkpoints: exit 2, the reason, nothing changed.
    bad = path("bad")
    os.makedirs(bad)
    cases = []
    shutil.copy(chkB, os.path.join(bad, "truncated.h5"))
    with open(os.path.join(bad, "truncated.h5"), "r+b") as f:
        f.truncate(os.path.getsize(chkB) // 2)
    cases.append(("truncated", os.path.join(bad, "truncated.h5"), SEDOV2D, [], r"truncated|cannot (open|read)|not an HDF5|corrupt"))
    shutil.copy(chkB, os.path.join(bad, "altered.h5"))
    with h5py.File(os.path.join(bad, "altered.h5"), "r+") as f:
        f["e"][3, 0] = f["e"][3, 0] * (1 + 1e-15) + 1e-300
    cases.append(("altered value", os.path.join(bad, "altered.h5"), SEDOV2D, [], r"/e is corrupted"))
    shutil.copy(chkB, os.path.join(bad, "version.h5"))
    with h5py.File(os.path.join(bad, "version.h5"), "r+") as f:
        f.attrs["format_version"] = np.int32(99)
    cases.append(("format version", os.path.join(bad, "version.h5"), SEDOV2D, [], r"format"))
    shutil.copy(chkB, os.path.join(bad, "nov.h5"))
    with h5py.File(os.path.join(bad, "nov.h5"), "r+") as f:
        del f["v"]
    cases.append(("missing dataset", os.path.join(bad, "nov.h5"), SEDOV2D, [], r"/v is missing"))
    with open(os.path.join(bad, "text.h5"), "w") as f:
        f.write("this is not an HDF5 file\n" * 10)
    cases.append(("not HDF5", os.path.join(bad, "text.h5"), SEDOV2D, [], r"HDF5"))
    cases.append(("missing file", os.path.join(bad, "none.h5"), SEDOV2D, [], r"none\.h5"))
    cases.append(("other problem", chkB, TG2D, [], r"problem"))
    # Other materials (the header rewritten, checksum and all, as such a run writes it):
    # Sedov's one gas is 'gas: ideal_gas gamma=1.4 p_inf=0'.
    with h5py.File(chkB, "r") as f:
        mats = f.attrs["materials"].decode()
    check(mats == "gas: ideal_gas gamma=1.4 p_inf=0", "the checkpoint's materials record %r" % mats)
    for tag, other in (("parameter", "gas: ideal_gas gamma=1.4000000000000001 p_inf=0"),
                       ("eos", "gas: stiffened_gas gamma=1.4 p_inf=0"),
                       ("name", "air: ideal_gas gamma=1.4 p_inf=0")):
        fn = os.path.join(bad, "materials_%s.h5" % tag)
        shutil.copy(chkB, fn)
        subprocess.run([SET_MATERIALS, fn, other], check=True, env=ENV, timeout=60)
        cases.append(("other materials: %s" % tag, fn, SEDOV2D, [],
                      re.escape("has material 0 as '%s', this run has '%s': a restart cannot "
                                "change the materials" % (other, mats))))
    # Other problem sections (a boundary section's type: the walls made free): the digest of
    # [region.*], [source.*], [boundary.*] and gravity differs.
    cases.append(("other boundary sections", chkB, SEDOV2D, ["boundary.walls.type=free"],
                  r"other problem sections .*a restart cannot change \[region\.\*\]"))
    cases.append(("other order", chkB, SEDOV2D, ["fem.order_kinematic=3"], r"order"))
    cases.append(("other dimension", chkB, SEDOV3D, ["mesh.refine_serial=0"], r"dim"))
    # [fem] assembly: the run's resolved mode is recorded; a restart in the other one is
    # refused before the solver is built (chkB: the 2D default, partial; chkF: full).
    run(2, SEDOV2D, path("AF"), "fem.assembly=full", "checkpoint.steps=%d" % S,
        "checkpoint.keep=100", "time.max_steps=%d" % (S + 5))
    chkF = path("AF", "checkpoints", "chk_%08d.h5" % S)
    with h5py.File(chkB, "r") as f, h5py.File(chkF, "r") as g:
        check(f.attrs["assembly"] == b"partial" and g.attrs["assembly"] == b"full",
              "checkpoints record the resolved assembly (%s, %s)" % (f.attrs["assembly"], g.attrs["assembly"]))

    def assembly_refusal(chk, got, mine):
        return (re.escape(chk) + r" was written with \[fem\] assembly = %s, but this run uses %s.*"
                r"Set \[fem\] assembly = %s \(on the command line: fem\.assembly=%s\) to continue "
                r"this run" % (got, mine, got, got))

    cases.append(("other assembly (full after partial)", chkB, SEDOV2D, ["fem.assembly=full"],
                  assembly_refusal(chkB, "partial", "full")))
    target = path("C")  # an existing run's output directory, which a restart may continue
    before = snapshot(target)
    files_before = snapshot(bad)
    chk_before = snapshot(path("B", "checkpoints"))
    for what, chk, deck, extra, regex in cases:
        p = run(2, deck, target, "--restart", chk, *extra, expect=None)
        msg = next((l for l in p.stderr.splitlines() if "error" in l), "")
        ok = p.returncode == 2 and re.search(regex, p.stderr) is not None
        check(ok, "refused (%s): exit %d, %s" % (what, p.returncode, msg[:160]))
        check(snapshot(target) == before, "refused (%s): the output directory is unchanged" % what)
    check(snapshot(bad) == files_before and snapshot(path("B", "checkpoints")) == chk_before,
          "refused checkpoints: the files themselves are unchanged")
    # chkF into its own run's directory (another run's is refused before the mode is seen).
    before = snapshot(path("AF"))
    for what, extra, mine in (("partial after full", ["fem.assembly=partial"], "partial"),
                              ("the 2D default after full", [],
                               r"partial \(\[fem\] assembly = default, which is partial in 2D\)")):
        p = run(2, SEDOV2D, path("AF"), "--restart", chkF, *extra, expect=None)
        msg = next((l for l in p.stderr.splitlines() if "error" in l), "")
        ok = p.returncode == 2 and re.search(assembly_refusal(chkF, "full", mine), p.stderr)
        check(ok, "refused (other assembly, %s): exit %d, %s" % (what, p.returncode, msg[:200]))
        check(snapshot(path("AF")) == before,
              "refused (other assembly, %s): the checkpoint and output directory are unchanged" % what)
    # The same mode continues the run.
    p = run(2, SEDOV2D, path("AF"), "--restart", chkF, "fem.assembly=full",
            "time.max_steps=%d" % (S + 5), expect=None)
    check(p.returncode == 0 and summary(path("AF"))["restart_steps"] == S,
          "restart in the same assembly mode (full) works (exit %d)" % p.returncode)

    # A fresh run does not silently mix with an earlier run's checkpoints.
    p = run(2, SEDOV2D, path("B"), "checkpoint.steps=%d" % S, expect=None)
    check(p.returncode == 2 and "overwrite" in p.stderr, "earlier run's results refused without overwrite")

    print("test_restart: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
