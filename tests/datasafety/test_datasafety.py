#!/usr/bin/env python3
"""Data safety of restarts and output directories, through
the real executable.

usage: test_datasafety.py BLAST MPIEXEC WORKDIR SQUARE_MESH

Every refused run must exit with the expected code, name the file or deck key, print its
message once, and leave every file that existed before it unchanged (sha1 of each file in
the work directory, compared before and after).

  1. restart into another run's output folder (fresh and old-style folders, the checkpoint
     dir of another run) is refused; into a new, an empty, or its own run's folder it runs;
     with output.overwrite=true it replaces the other run's results;
  2. a second run started into a folder that a running blast_gpu holds is refused; two
     runs started at once: one runs, the other is refused, the folder holds one run; a lock
     left by a killed run is reported as stale and taken over; a failed run releases it;
  3. checkpoint root attributes: a retyped dt (float32), a renamed steps, a changed t, a
     changed run_id, and metadata damage that HDF5 reports (root and dataset object
     headers) are refused with exit 2 and "corrupt";
  4. a checkpoint of a differently numbered mesh with the same zone and dof counts
     (refine_serial=2 against refine_serial=1 refine_parallel=1; a generated box against
     the mesh file) is refused naming the mesh;
  5. t_final at or before the checkpoint's time, max_steps below its attempts: refused;
     max_steps = N makes N + 1 attempts, also across a restart;
 10. checkpoint.dir below a regular file or in /proc: refused at start-up (before the
     setup: no banner), exit 2 and 1.
"""
import fcntl
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

BLAST, MPIEXEC, WORK, MESH = sys.argv[1:5]
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def path(*p):
    return os.path.join(WORK, *p)


DECK = path("sedov.ini")
BOX = path("box.ini")


def write_decks():
    with open(DECK, "w") as f:
        f.write("[problem]\nname = sedov\nblast_energy = 1.0\n[mesh]\nfile = %s\nrefine_serial = 2\n"
                "[fem]\norder_kinematic = 2\n[time]\nt_final = 0.05\n[output]\nprint_every = 1000\n"
                % MESH)
    with open(BOX, "w") as f:
        f.write("[problem]\nname = sedov\nblast_energy = 1.0\n[mesh]\ndim = 2\nelements = 8 8\n"
                "size = 1 1\n[fem]\norder_kinematic = 2\n[time]\nt_final = 0.05\n[output]\n"
                "print_every = 1000\n")


def cmd(n, deck, out, *extra):
    return [MPIEXEC, "-n", str(n), "--oversubscribe", BLAST, deck, "output.dir=" + out] + list(extra)


def run(n, deck, out, *extra, expect=0):
    p = subprocess.run(cmd(n, deck, out, *extra), capture_output=True, text=True, env=ENV,
                       timeout=300)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-2000:], p.stderr[-3000:])
        check(False, "%s exited with %d, expected %d" % (" ".join(p.args[3:]), p.returncode, expect))
    return p


def snapshot(d=WORK, exclude=None):
    snap = {}
    for root, _, files in os.walk(d):
        if exclude and (root == exclude or root.startswith(exclude + os.sep)):
            continue
        for fn in files:
            p = os.path.join(root, fn)
            with open(p, "rb") as f:
                snap[os.path.relpath(p, d)] = hashlib.sha1(f.read()).hexdigest()
    return snap


def refused(what, n, deck, out, *extra, code=2, regex, no_banner=False, live=None):
    """Run and require: exit `code`, `regex` in the one error message, nothing changed
    (`live`: the folder of a run still going, whose own files may change meanwhile)."""
    before = snapshot(exclude=live)
    existed = os.path.exists(out)
    p = run(n, deck, out, *extra, expect=None)
    errors = [l for l in p.stderr.splitlines() if "blast_gpu: error" in l]
    first = errors[0] if errors else ""
    check(p.returncode == code, "%s (%d ranks): exit %d (want %d): %s" % (what, n, p.returncode, code, first[:300]))
    check(re.search(regex, p.stderr) is not None, "%s (%d ranks): message matches /%s/" % (what, n, regex))
    check(len(errors) == 1, "%s (%d ranks): the message is printed once (%d)" % (what, n, len(errors)))
    check(snapshot(exclude=live) == before, "%s (%d ranks): every earlier file is unchanged" % (what, n))
    check(os.path.exists(out) == existed, "%s (%d ranks): no output directory created" % (what, n))
    if no_banner:
        check("blast_gpu " not in p.stdout, "%s (%d ranks): refused at start-up, before the setup" % (what, n))
    return p


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def chk_of(out, step):
    return os.path.join(out, "checkpoints", "chk_%08d.h5" % step)


def final_e(out):
    with h5py.File(summary(out)["checkpoint"], "r") as f:
        return np.array(f["e"]), np.array(f["x"])


def modified(src, name, edit):
    dst = path("bad", name)
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f)
    return dst


def flip_after(src, name, needle, nth, offset):
    """Copy src and flip one byte `offset` bytes after the nth occurrence of `needle`."""
    dst = path("bad", name)
    data = bytearray(open(src, "rb").read())
    pos = -1
    for _ in range(nth + 1):
        pos = data.find(needle, pos + 1)
    assert pos >= 0, "%r not found in %s" % (needle, src)
    data[pos + offset] ^= 0x5A
    open(dst, "wb").write(bytes(data))
    return dst


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(path("bad"))
    write_decks()

    # Two finished runs with checkpoints: A and B (different run ids).
    run(2, DECK, path("A"), "checkpoint.steps=10", "checkpoint.keep=5")
    run(2, DECK, path("B"), "checkpoint.steps=10", "checkpoint.keep=5")
    sa, sb = summary(path("A")), summary(path("B"))
    check(re.fullmatch(r"[0-9a-f]{32}", sa["run_id"]) is not None and sa["run_id"] != sb["run_id"],
          "summary.json names the run (32 hex digits), a new id per fresh run")
    with open(path("A", ".blast_gpu_run")) as f:
        check(f.read().strip() == sa["run_id"], "the output folder is marked with the run id")
    chkA = chk_of(path("A"), 10)
    with h5py.File(chkA, "r") as f:
        check(f.attrs["run_id"].decode() == sa["run_id"], "the checkpoint carries the run id")
    steps_A = sa["steps"]

    # ---- 1. Restart into another run's folder.
    for n in (1, 2):
        refused("restart into another run's output folder", n, DECK, path("B"), "--restart", chkA,
                regex=r"'.*/B' holds the results of another run.*overwrite", no_banner=True)
    os.makedirs(path("old", "checkpoints"))  # a folder of an older blast_gpu: no marker
    with open(path("old", "summary.json"), "w") as f:
        f.write("{}\n")
    refused("restart into an unmarked folder with a summary", 2, DECK, path("old"), "--restart", chkA,
            regex=r"holds the results of another run")
    refused("restart with another run's checkpoint dir", 2, DECK, path("C1"), "--restart", chkA,
            "checkpoint.dir=" + path("B", "checkpoints"),
            regex=r"\[checkpoint\] dir '.*/B/checkpoints' holds the results of another run")
    refused("fresh run with another run's checkpoint dir", 2, DECK, path("C1"),
            "checkpoint.dir=" + path("B", "checkpoints"),
            regex=r"\[checkpoint\] dir '.*/B/checkpoints' holds checkpoints of an earlier run")
    # Allowed: new folder, empty folder, the run's own folder; all end as the run A did.
    eA, xA = final_e(path("A"))
    run(2, DECK, path("new"), "--restart", chkA)
    os.makedirs(path("empty"))
    run(1, DECK, path("empty"), "--restart", chkA)
    e_new, _ = final_e(path("new"))
    check(np.array_equal(e_new, eA), "restart into a new folder: the run's end, bit for bit")
    check(summary(path("new"))["run_id"] == sa["run_id"], "a restart keeps the run id")
    check(os.path.isfile(path("empty", "summary.json")), "restart into an empty folder runs")
    before_own = set(os.listdir(path("A", "checkpoints")))
    run(2, DECK, path("A"), "--restart", chkA, "checkpoint.steps=10", "checkpoint.keep=5")
    e_own, _ = final_e(path("A"))
    check(np.array_equal(e_own, eA), "restart into the run's own folder continues it, bit for bit")
    check(set(os.listdir(path("A", "checkpoints"))) == before_own,
          "continuing its own folder: the same checkpoint files")
    # With overwrite: the other run's results are replaced.
    shutil.copytree(path("B"), path("B2"))
    run(2, DECK, path("B2"), "--restart", chkA, "output.overwrite=true")
    check(summary(path("B2"))["run_id"] == sa["run_id"], "overwrite=true: the folder now holds the restarted run")

    # ---- 2. Concurrent runs and the lock.
    long = ["time.t_final=0.8", "mesh.refine_serial=4"]  # minutes: stopped by SIGUSR1 below
    first = subprocess.Popen(cmd(2, DECK, path("L"), *long), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
    t0 = time.time()
    while not os.path.exists(path("L", ".blast_gpu_run")) and time.time() - t0 < 60:
        time.sleep(0.05)
    for n in (1, 2):
        refused("second run into a folder a running blast_gpu holds", n, DECK, path("L"), *long,
                regex=r"'.*/L' is in use by another blast_gpu run \(pid \d+ on host", no_banner=True,
                live=path("L"))
    refused("second run (overwrite) into a running run's folder", 2, DECK, path("L"), *long,
            "output.overwrite=true", regex=r"is in use by another blast_gpu run", live=path("L"))
    check(first.poll() is None, "the first run was still running during these checks")
    first.send_signal(signal.SIGUSR1)  # mpirun forwards it: checkpoint, clean stop
    out, err = first.communicate(timeout=600)
    check(first.returncode == 0, "the first run ends normally (exit %d)" % first.returncode)
    with open(path("L", ".blast_gpu.lock")) as f:
        check(f.read() == "", "a run that ended released its lock (the lock file is empty)")
    # Two at once: exactly one runs, the folder holds its results only.
    procs = [subprocess.Popen(cmd(2, DECK, path("T"), "time.t_final=0.1"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=ENV) for _ in range(2)]
    res = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    codes = sorted(r[0] for r in res)
    check(codes == [0, 2], "two runs started at once: one runs, the other is refused (exits %s)" % codes)
    loser = [r[1] for r in res if r[0] == 2]
    check(bool(loser) and re.search(r"in use by another blast_gpu run|holds the results of an earlier run",
                                    loser[0]) is not None, "the refused one says why")
    with open(path("T", ".blast_gpu_run")) as f:
        check(f.read().strip() == summary(path("T"))["run_id"], "the folder holds the one run's results")
    # A killed run leaves a stale lock: reported and taken over by the next run.
    victim = subprocess.Popen(cmd(2, DECK, path("K"), *long, "checkpoint.steps=5", "checkpoint.keep=1000"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                              start_new_session=True)
    t0 = time.time()
    while not os.path.exists(chk_of(path("K"), 5)) and time.time() - t0 < 120:
        time.sleep(0.05)
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait()
    t0 = time.time()  # the ranks may outlive mpirun for a moment: until the kernel frees the lock
    while time.time() - t0 < 60:
        with open(path("K", ".blast_gpu.lock")) as lf:
            try:
                fcntl.flock(lf, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except OSError:
                time.sleep(0.1)
    with open(path("K", ".blast_gpu.lock")) as f:
        check("pid" in f.read(), "SIGKILL: the lock file still names the dead process")
    p = run(2, DECK, path("K"), "--restart", chk_of(path("K"), 5), "time.t_final=0.02",
            "mesh.refine_serial=4")
    check("took over the stale lock" in p.stdout, "the next run reports the stale lock and runs")
    # A failed run (exit 3) releases the lock on its error path.
    run(2, DECK, path("F"), "time.dt_min=0.5", expect=3)
    with open(path("F", ".blast_gpu.lock")) as f:
        check(f.read() == "", "a run that failed (exit 3) released its lock")

    # ---- 3. Root attributes of a checkpoint.
    def retype_dt(f):
        v = f.attrs["dt"]
        del f.attrs["dt"]
        f.attrs.create("dt", np.float32(v))

    def rename_steps(f):
        v = f.attrs["steps"]
        del f.attrs["steps"]
        f.attrs["Steps"] = v

    def shift_t(f):
        f.attrs["t"] = np.float64(f.attrs["t"] * (1 + 1e-12))

    def other_run(f):
        f.attrs["run_id"] = np.bytes_(b"0" * 32)

    cases = [("dt stored as float32", modified(chkA, "dt32.h5", retype_dt), r"'dt' holds a float of 4 bytes"),
             ("steps renamed", modified(chkA, "steps.h5", rename_steps), r"'steps' is missing"),
             ("t changed by 1e-12", modified(chkA, "t.h5", shift_t), r"do not match their checksum"),
             ("run_id changed", modified(chkA, "runid.h5", other_run), r"corrupt|checksum"),
             ("root object header damaged", flip_after(chkA, "roothdr.h5", b"step_attempts", 0, 2),
              r"corrupt|cannot be opened|not a readable"),
             ("dataset object header damaged", flip_after(chkA, "dsethdr.h5", b"checksum", 2, 3),
              r"corrupt")]
    for what, bad, regex in cases:
        for n in (1, 2):
            refused("checkpoint: " + what, n, DECK, path("R3"), "--restart", bad, regex=regex)

    refused("checkpoint of another quadrature rule", 2, DECK, path("R3"), "--restart", chkA,
            "fem.order_quadrature=4", regex=r"different quadrature rule.*quadrature_points = 16, this run has 9")
    p = run(2, DECK, path("R3n"), "--restart", chkA, "time.cfl=0.3", "solver.cg_max_iter=400")
    check("note: this restart changes time.cfl 0.5 -> 0.3, solver.cg_max_iter 300 -> 400" in p.stdout,
          "a restart that changes bit-deciding options says which")

    # ---- 4. Same counts, other mesh numbering or geometry.
    run(2, DECK, path("M"), "time.max_steps=3")
    chkM = summary(path("M"))["checkpoint"]
    for n in (2, 3):
        refused("checkpoint of refine_serial=2, run with refine_serial=1 refine_parallel=1", n, DECK,
                path("R4"), "--restart", chkM, "mesh.refine_serial=1", "mesh.refine_parallel=1",
                regex=r"different mesh: the same 64 zones.*numbered differently.*refine_serial=2 "
                      r"mesh.refine_parallel=0.*refine_serial=1 mesh.refine_parallel=1")
    refused("checkpoint of a mesh file, run on a generated box of the same size", 2, BOX, path("R4"),
            "--restart", chkM, regex=r"different mesh: the same 64 zones.*generated box")

    # ---- 5. Time and step limits of a restart.
    t10 = h5py.File(chkA, "r").attrs["t"]
    for n in (1, 2):
        refused("restart with t_final before the checkpoint's time", n, DECK, path("R5"),
                "--restart", chkA, "time.t_final=%.17g" % (t10 / 2), regex=r"\[time\] t_final = .* is not after", no_banner=True)
    refused("restart with t_final equal to the checkpoint's time", 2, DECK, path("R5"),
            "--restart", chkA, "time.t_final=%.17g" % t10, regex=r"\[time\] t_final = .* is not after")
    attA = int(h5py.File(chkA, "r").attrs["step_attempts"])
    refused("restart with max_steps below the checkpoint's attempts", 2, DECK, path("R5"),
            "--restart", chkA, "time.max_steps=%d" % (attA - 1),
            regex=r"\[time\] max_steps = %d, but checkpoint .* %d step attempts" % (attA - 1, attA))
    check(summary(path("M"))["step_attempts"] == 4, "max_steps=3 makes 4 attempts")
    run(2, DECK, path("R5b"), "time.max_steps=5", "checkpoint.steps=3")
    run(2, DECK, path("R5c"), "--restart", chk_of(path("R5b"), 3), "time.max_steps=5")
    check(summary(path("R5c"))["step_attempts"] == summary(path("R5b"))["step_attempts"] == 6,
          "max_steps=5: 6 attempts, with or without a restart in between")
    att3 = int(h5py.File(chk_of(path("R5b"), 3), "r").attrs["step_attempts"])
    run(2, DECK, path("R5d"), "--restart", chk_of(path("R5b"), 3), "time.max_steps=%d" % att3)
    check(summary(path("R5d"))["step_attempts"] == att3 + 1, "restart at attempts == max_steps: one more attempt")

    # ---- 10. checkpoint.dir checked at start-up.
    open(path("afile"), "w").close()
    for n in (1, 2):
        refused("checkpoint.dir below a regular file", n, DECK, path("R10"),
                "checkpoint.dir=" + path("afile", "chk"), regex=r"\[checkpoint\] dir '.*afile/chk' cannot be created",
                no_banner=True)
    refused("checkpoint.dir in /proc", 2, DECK, path("R10"), "checkpoint.dir=/proc/blast_gpu_test/chk",
            code=1, regex=r"\[checkpoint\] dir '/proc/blast_gpu_test/chk' is not writable", no_banner=True)

    print("test_datasafety: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
