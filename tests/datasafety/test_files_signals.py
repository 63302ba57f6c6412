#!/usr/bin/env python3
"""Files the run creates, signals, and dumps by time, through the real executable.

usage: test_files_signals.py BLAST MPIEXEC WORKDIR SQUARE_MESH {links,signals,vizdt,fulldisk}

links     no file is written through a symbolic link: a stale checkpoint temporary
          (.chk_NNNNNNNN.h5.tmp) that links to a file outside the run's folders, a dangling
          one, dump and series temporaries and series files that are links (blast.xdmf,
          blast.pvd and the VTK files' temporaries: pieces, .pvtu, .pvd), and links
          planted at every future temporary's name while the run goes on (1 and 2 ranks).
          Every outside file keeps its sha1; the checkpoints and dumps are regular files.
signals   SIGINT and SIGHUP to the blast_gpu processes stop the run as SIGTERM does (a
          checkpoint, summary.json naming the signal, exit 0, the folder's lock released:
          the printed restart continues it to the end); through mpirun, which turns SIGINT,
          SIGHUP and SIGTERM into SIGTERM to the ranks; a signal during the last step leaves
          the run completed (no "STOPPED EARLY", no continue command); a closed stdout pipe
          (| head -3) or a closed stdout does not stop or fail the run.
vizdt     an [output] viz_dt too small for t_final (1e-300, t_final 2^-49, ...) is refused
          at once with exit 2 naming the key and writing nothing; the smallest accepted one
          runs (a dump at every step) and stops on SIGTERM.
fulldisk  a small tmpfs that passes the start-up check fills up during a checkpoint or a
          dump (1 and 2 ranks): exit 1, one message naming the file and "No space left on
          device", no temporary left, earlier files unchanged, the newest checkpoint
          continues the run once space is freed. Needs root (mount).
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

BLAST, MPIEXEC, WORK, MESH, MODE = sys.argv[1:6]
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


def cmd(n, out, *extra, deck=None):
    pre = [MPIEXEC, "-n", str(n), "--oversubscribe"] if n > 1 else []
    return pre + [BLAST, deck or DECK, "output.dir=" + out] + list(extra)


def run(n, out, *extra, expect=0, timeout=300):
    p = subprocess.run(cmd(n, out, *extra), capture_output=True, text=True, env=ENV,
                       timeout=timeout)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-2000:], p.stderr[-3000:])
        check(False, "%s exited with %d, expected %d" % (" ".join(p.args[-4:]), p.returncode, expect))
    return p


def sha1(p):
    with open(p, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def snapshot(d):
    snap = {}
    for root, _, files in os.walk(d):
        for fn in files:
            p = os.path.join(root, fn)
            if not os.path.islink(p):
                snap[os.path.relpath(p, d)] = sha1(p)
    return snap


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def regular(p):
    return os.path.exists(p) and not os.path.islink(p) and os.path.isfile(p)


def errors_of(p):
    return [l for l in p.stderr.splitlines() if "blast_gpu: error" in l]


def outside_files(tag):
    """Files outside every run folder, to be pointed at by links: name -> sha1."""
    d = path("outside_" + tag)
    os.makedirs(d, exist_ok=True)
    files = {}
    for i in range(4):
        p = os.path.join(d, "precious%d.txt" % i)
        with open(p, "w") as f:
            f.write("precious data %d of %s\n" % (i, tag))
        files[p] = sha1(p)
    return d, files


def outside_unchanged(files, missing, what):
    ok = all(sha1(p) == h for p, h in files.items())
    ok = ok and not any(os.path.exists(m) for m in missing)
    check(ok, "%s: every file outside the run keeps its sha1, no file created through a dangling link" % what)


# ---------------------------------------------------------------------------------------
def test_links():
    for n in (1, 2):
        tag = "L%d" % n
        od, files = outside_files(tag)
        out = path(tag)
        chk = os.path.join(out, "checkpoints")
        viz = os.path.join(out, "viz")
        os.makedirs(chk)
        os.makedirs(viz)
        p0, p1, p2, p3 = sorted(files)
        missing = os.path.join(od, "never_created.txt")
        os.symlink(p0, os.path.join(chk, ".chk_00000010.h5.tmp"))
        os.symlink(missing, os.path.join(chk, ".chk_00000020.h5.tmp"))
        os.symlink(p1, os.path.join(viz, ".viz_000001.h5.tmp"))
        os.symlink(p2, os.path.join(viz, ".viz_blast.xdmf.tmp"))
        os.symlink(p3, os.path.join(viz, "blast.xdmf"))
        # The VTK files' temporaries (a piece, the .pvtu, the series) and series.
        os.symlink(p0, os.path.join(viz, ".viz_000001_p000000.vtu.tmp"))
        os.symlink(missing, os.path.join(viz, ".viz_000001.pvtu.tmp"))
        os.symlink(p1, os.path.join(viz, ".viz_blast.pvd.tmp"))
        os.symlink(p2, os.path.join(viz, "blast.pvd"))
        # The link at blast.xdmf stands for an earlier run's series: replaced with overwrite
        # (the link removed, its target untouched); the temporaries' links are removed.
        p = run(n, out, "checkpoint.steps=10", "checkpoint.keep=100", "output.viz_steps=10",
                "output.overwrite=true")
        outside_unchanged(files, [missing], "stale links at the temporaries' names (%d ranks)" % n)
        names = sorted(f for f in os.listdir(chk))
        check(p.returncode == 0 and all(regular(os.path.join(chk, f)) for f in names)
              and "chk_00000010.h5" in names and "chk_00000020.h5" in names
              and not any(f.endswith(".tmp") for f in names),
              "%d ranks: the checkpoints are regular files, no temporary left: %s" % (n, names))
        vnames = sorted(os.listdir(viz))
        check(all(regular(os.path.join(viz, f)) for f in vnames) and "blast.xdmf" in vnames
              and "blast.pvd" in vnames and "viz_000001.pvtu" in vnames
              and not any(f.endswith(".tmp") for f in vnames),
              "%d ranks: the dumps and the series are regular files: %s" % (n, vnames))

    # Links planted at every future temporary's name while the run goes on: each is either
    # removed before the file is created, or the creation fails (O_EXCL); nothing outside
    # changes, and a run that ends well has regular files only.
    for n, which in ((1, "chk"), (2, "chk"), (1, "viz"), (2, "viz")):
        tag = "R%d%s" % (n, which)
        od, files = outside_files(tag)
        out = path(tag)
        chk = os.path.join(out, "checkpoints")
        viz = os.path.join(out, "viz")
        targets = sorted(files)
        missing = os.path.join(od, "never_created.txt")
        stop = threading.Event()

        def plant():
            while not stop.is_set():
                for d, names in ((chk, [".chk_%08d.h5.tmp" % s for s in range(1, 40)]),
                                 (viz, [".viz_%06d.h5.tmp" % s for s in range(1, 40)]
                                  + [".viz_%06d_p%06d.vtu.tmp" % (s, r) for s in range(1, 40)
                                     for r in range(n)]
                                  + [".viz_%06d.pvtu.tmp" % s for s in range(1, 40)]
                                  + [".viz_blast.xdmf.tmp", ".viz_blast.pvd.tmp"])):
                    if not os.path.isdir(d) or (which == "chk" and d == viz):
                        continue
                    for i, nm in enumerate(names):
                        try:
                            os.symlink(targets[i % 4] if i % 5 else missing, os.path.join(d, nm))
                        except OSError:
                            pass
                time.sleep(0.001)

        th = threading.Thread(target=plant)
        th.start()
        try:
            p = run(n, out, "checkpoint.steps=1", "checkpoint.keep=100",
                    "output.viz_steps=%d" % (1 if which == "viz" else 0), expect=None)
        finally:
            stop.set()
            th.join()
        outside_unchanged(files, [missing], "links planted during the run (%d ranks, %s)" % (n, which))
        errs = errors_of(p)
        if p.returncode == 0:
            chks = [f for f in os.listdir(chk) if f.startswith("chk_")]
            dumps = [f for f in os.listdir(viz)
                     if f.startswith("viz_") or f in ("blast.xdmf", "blast.pvd")]
            check(all(regular(os.path.join(chk, f)) for f in chks)
                  and all(regular(os.path.join(viz, f)) for f in dumps) and len(chks) > 10,
                  "links planted during the run (%d ranks, %s): exit 0, %d checkpoints and %d "
                  "dump files, all regular" % (n, which, len(chks), len(dumps)))
        else:
            check(p.returncode == 1 and len(errs) >= 1 and
                  re.search(r"never through a link|cannot create|File exists", errs[0]) is not None,
                  "links planted during the run (%d ranks, %s): refused to write through one: "
                  "exit %d: %s" % (n, which, p.returncode, errs[0][:200] if errs else p.stderr[-300:]))


# ---------------------------------------------------------------------------------------
LONG = ["time.t_final=0.8", "mesh.refine_serial=4", "output.print_every=1"]


def blast_pids(out):
    pids = subprocess.run(["pgrep", "-f", "output.dir=" + out], capture_output=True,
                          text=True).stdout.split()
    mine = []
    for pid in pids:
        try:
            with open("/proc/%s/comm" % pid) as f:
                if f.read().strip() == "blast_gpu":
                    mine.append(int(pid))
        except OSError:
            pass
    return mine


def start_and_signal(n, out, sig, to_mpirun, extra, after_line):
    """Start a run, wait for a line of stdout starting with `after_line`, send `sig` to
    mpirun (to_mpirun) or to every blast_gpu process; return (exit code, stdout, stderr)."""
    p = subprocess.Popen(cmd(n, out, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=ENV)
    head = []
    for line in p.stdout:
        head.append(line)
        if line.startswith(after_line):
            break
    if to_mpirun == "rank0":  # the rank that prints: it has read the flag of that step
        for pid in blast_pids(out):
            try:
                with open("/proc/%d/environ" % pid, "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if b"OMPI_COMM_WORLD_RANK=0" in env or b"OMPI_COMM_WORLD_RANK=1" not in env:
                os.kill(pid, sig)
    elif to_mpirun:
        p.send_signal(sig)
    else:
        for pid in blast_pids(out):
            os.kill(pid, sig)
    rest, err = p.communicate(timeout=180)
    return p.returncode, "".join(head) + rest, err


def test_signals():
    # SIGINT and SIGHUP to the processes themselves: the same clean stop as SIGTERM.
    for n, sig in ((1, signal.SIGINT), (1, signal.SIGHUP), (2, signal.SIGINT), (2, signal.SIGHUP)):
        name = signal.Signals(sig).name
        out = path("S%d_%s" % (n, name))
        t0 = time.time()
        rc, o, e = start_and_signal(n, out, sig, False, LONG, "step")
        secs = time.time() - t0
        check(rc == 0, "%s to the %d rank(s): exit 0 (got %d) after %.1f s" % (name, n, rc, secs))
        if rc != 0:
            print(o[-1500:], e[-1500:])
            continue
        s = summary(out)
        check(s["completed"] is False and s["stopped_by"] == name and regular(s["checkpoint"]),
              "%s (%d ranks): summary.json says completed false, stopped_by %s, checkpoint %s"
              % (name, n, s["stopped_by"], s["checkpoint"]))
        check(("checkpoint (%s)" % name) in o and "STOPPED EARLY" in o and "--restart" in o,
              "%s (%d ranks): the checkpoint, STOPPED EARLY and the continue command are printed" % (name, n))
        # The lock is released: the printed restart runs in the same folder to the end.
        p = run(n, out, *LONG[:2], "time.max_steps=8", "--restart", s["checkpoint"])
        check(p.returncode == 0 and summary(out)["completed"] is True,
              "%s (%d ranks): the restart in the same folder runs to the end (lock released)" % (name, n))

    # Through mpirun: Open MPI does not forward SIGINT, SIGHUP or SIGTERM (only SIGUSR1,
    # SIGUSR2, ...). It aborts the job: it stops forwarding the ranks' output, sends them
    # SIGTERM after odls_base_sigkill_timeout seconds and SIGKILL as long again after, and
    # exits 1. The ranks stop cleanly if they can in that time (summary naming SIGTERM);
    # either way no published checkpoint is incomplete.
    for sig in (signal.SIGINT, signal.SIGHUP):
        name = signal.Signals(sig).name
        out = path("M_%s" % name)
        rc, o, e = start_and_signal(2, out, sig, True, LONG, "step")
        ok = os.path.exists(os.path.join(out, "summary.json"))
        s = summary(out) if ok else {}
        d = os.path.join(out, "checkpoints")
        chks = [os.path.join(d, f) for f in os.listdir(d) if f.startswith("chk_")] if os.path.isdir(d) else []
        whole = True
        for c in chks:
            with open(c, "rb") as f:
                whole = whole and f.read(8) == b"\x89HDF\r\n\x1a\n"
        check(rc != 0 and (not ok or s["stopped_by"] == "SIGTERM") and whole,
              "%s to mpirun: the job is ended (mpirun exit %d); %s; %d published checkpoint(s), "
              "all HDF5 files" % (name, rc, "summary names SIGTERM" if ok else "no summary (killed)",
                                  len(chks)))

    # A signal during the last step: the run is complete. The last step is found from a run
    # without a signal; the signal goes out when the step before it is printed, so it comes
    # during the last step (if it came early or late, the attempt is repeated). On 2 ranks it
    # goes to rank 0, which prints the step after the other rank may still be computing it.
    cases = [(1, signal.SIGTERM, ["time.max_steps=3"]),
             (1, signal.SIGINT, ["time.t_final=0.0003"]),
             (2, signal.SIGUSR1, ["time.max_steps=3"]),
             (2, signal.SIGHUP, ["time.t_final=0.0003"])]
    for n, sig, extra in cases:
        name = signal.Signals(sig).name
        base = ["mesh.refine_serial=5", "output.print_every=1"] + extra
        ref = path("last_ref_%d_%s" % (n, name))
        run(n, ref, *base)
        last = summary(ref)["steps"]
        hit = False
        for attempt in range(6):
            out = path("last_%d_%s_%d" % (n, name, attempt))
            rc, o, e = start_and_signal(n, out, sig, "rank0" if n > 1 else False,
                                        base + ["checkpoint.at_end=false"],
                                        "step %5d," % (last - 1))
            m = re.search(r"checkpoint \(%s\) at step (\d+)" % name, o)
            if not m or int(m.group(1)) != last:
                print("  (attempt %d: the signal came %s the last step: %s)"
                      % (attempt, "before" if m else "after", m.group(0) if m else "no checkpoint"))
                continue
            hit = True
            s = summary(out)
            check(rc == 0 and s["completed"] is True and s["stopped_by"] == ""
                  and s["steps"] == last and "STOPPED EARLY" not in o and "--restart" not in o,
                  "%s in the last step (%d ranks, %s): exit %d, completed %s, stopped_by '%s', "
                  "no STOPPED EARLY, no continue command" % (name, n, extra[0], rc, s["completed"],
                                                             s["stopped_by"]))
            check(regular(s["checkpoint"]), "%s in the last step (%d ranks): its checkpoint %s"
                  % (name, n, s["checkpoint"]))
            break
        check(hit, "%s in the last step (%d ranks, %s): the signal came during the last step "
              "in one of 6 attempts" % (name, n, extra[0]))

    # A closed stdout pipe: SIGPIPE is ignored, the run goes on to the end.
    out = path("P1")
    sh = subprocess.run("'%s' '%s' output.dir='%s' output.print_every=1 | head -3; "
                        "echo \"rc=${PIPESTATUS[0]}\"" % (BLAST, DECK, out),
                        shell=True, executable="/bin/bash", capture_output=True, text=True,
                        env=ENV, timeout=300)
    ok = os.path.exists(os.path.join(out, "summary.json"))
    check("rc=0" in sh.stdout and ok and summary(out)["completed"] is True,
          "| head -3: exit 0 (%s), the run completes (summary %s)"
          % (sh.stdout.strip().splitlines()[-1], "written" if ok else "missing"))
    # A closed stdout (>&-): nothing printed lands in a file the run opens.
    out = path("P2")
    sh = subprocess.run("exec >&-; '%s' '%s' output.dir='%s' checkpoint.steps=5; echo rc=$? >&2"
                        % (BLAST, DECK, out), shell=True, executable="/bin/bash",
                        capture_output=True, text=True, env=ENV, timeout=300)
    ok = os.path.exists(os.path.join(out, "summary.json"))
    s = summary(out) if ok else {}
    check("rc=0" in sh.stderr and ok and s["completed"] is True,
          "stdout closed: exit 0, the run completes (%s)" % sh.stderr.strip()[-100:])
    if ok:
        with open(s["checkpoint"], "rb") as f:
            check(f.read(8) == b"\x89HDF\r\n\x1a\n", "stdout closed: the checkpoint is an HDF5 file")


# ---------------------------------------------------------------------------------------
def test_vizdt():
    for n, value, where in ((1, "1e-300", None), (1, "1e-17", None), (2, "%r" % (0.05 * 2.0 ** -49), None),
                            (1, "1e-300", "deck")):
        out = path("V_%d_%s" % (n, value))
        before = snapshot(WORK)
        t0 = time.time()
        if where == "deck":
            deck = path("vizdt.ini")
            with open(DECK) as f, open(deck, "w") as g:
                g.write(f.read() + "viz_dt = %s\n" % value)
            before = snapshot(WORK)
            p = subprocess.run(cmd(n, out, deck=deck), capture_output=True, text=True,
                               env=ENV, timeout=60)
        else:
            p = run(n, out, "output.viz_dt=" + value, expect=None, timeout=60)
        secs = time.time() - t0
        errs = errors_of(p)
        check(p.returncode == 2 and len(errs) == 1 and "[output] viz_dt" in errs[0]
              and "too small" in errs[0],
              "viz_dt=%s (%d ranks, %s): exit %d in %.1f s: %s" % (value, n, where or "command line",
                                                               p.returncode, secs, errs[0][:220] if errs else ""))
        check(not os.path.exists(out) and snapshot(WORK) == before,
              "viz_dt=%s (%d ranks): nothing written, every earlier file unchanged" % (value, n))
    # The smallest accepted value: a dump after every step, and the run ends.
    least = 0.05 * 2.0 ** -48
    out = path("V_least")
    p = run(1, out, "output.viz_dt=%r" % (least * 1.0000001), expect=None, timeout=120)
    s = summary(out) if p.returncode == 0 else {}
    check(p.returncode == 0 and s.get("viz_dumps") == s.get("steps", -1) + 1,
          "viz_dt = t_final 2^-48: accepted, a dump at the start and after each of %s steps (%s dumps)"
          % (s.get("steps"), s.get("viz_dumps")))
    # ... and a SIGTERM stops it (no loop ignores the signal).
    out = path("V_sig")
    rc, o, e = start_and_signal(1, out, signal.SIGTERM, False,
                                LONG + ["output.viz_dt=%r" % (0.8 * 2.0 ** -47)], "step")
    s = summary(out) if rc == 0 else {}
    check(rc == 0 and s.get("stopped_by") == "SIGTERM",
          "tiny accepted viz_dt: SIGTERM stops the run (exit %d, stopped_by %s)" % (rc, s.get("stopped_by")))


# ---------------------------------------------------------------------------------------
def test_fulldisk():
    mnt = path("fullfs")
    os.makedirs(mnt, exist_ok=True)
    if os.path.ismount(mnt):
        subprocess.run(["umount", mnt])
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt])
    if not check(r.returncode == 0, "mount a 3 MiB tmpfs at %s" % mnt):
        return
    try:
        cases = [(1, "checkpoint", ["checkpoint.steps=1", "checkpoint.keep=1000"]),
                 (2, "checkpoint", ["checkpoint.steps=1", "checkpoint.keep=1000"]),
                 (1, "visualization dump", ["output.viz_steps=3", "checkpoint.steps=1",
                                            "checkpoint.keep=1", "output.viz_format=xdmf"]),
                 (2, "visualization dump", ["output.viz_steps=3", "checkpoint.steps=1",
                                            "checkpoint.keep=1", "output.viz_format=xdmf"]),
                 (2, "visualization piece", ["output.viz_steps=3", "checkpoint.steps=1",
                                             "checkpoint.keep=1", "output.viz_format=vtu"]),
                 (1, "visualization piece", ["output.viz_steps=3", "checkpoint.steps=1",
                                             "checkpoint.keep=1", "output.viz_format=both"])]
        for n, what, extra in cases:
            for f in os.listdir(mnt):
                p = os.path.join(mnt, f)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
            # Leave about 1.3 MiB: the start-up check (1 MiB) passes, a few files fit.
            st = os.statvfs(mnt)
            fill = st.f_bavail * st.f_frsize - 1300 * 1024
            with open(os.path.join(mnt, "filler"), "wb") as f:
                f.write(b"\0" * fill)
            with open(os.path.join(mnt, "earlier.txt"), "w") as f:
                f.write("an earlier file\n")
            before = snapshot(mnt)
            out = os.path.join(mnt, "run")
            p = run(n, out, "mesh.refine_serial=4", *extra, expect=None, timeout=120)
            errs = errors_of(p)
            first = errs[0] if errs else ""
            tag = "full disk in a %s (%d ranks)" % (what, n)
            check(p.returncode == 1, "%s: exit %d (want 1)" % (tag, p.returncode))
            check(re.search(r"cannot write (a )?%s \S+/\.(chk_\d{8}\.h5|viz_\d{6}\.h5|"
                            r"viz_\d{6}_p\d{6}\.vtu)\.tmp: No space left on device" % what,
                            first) is not None,
                  "%s: the message names the file and the cause: %s" % (tag, first[:260]))
            check(len(errs) == 1, "%s: printed once (%d)" % (tag, len(errs)))
            left = [os.path.join(r_, f) for r_, _, fs in os.walk(out) for f in fs if f.endswith(".tmp")]
            check(not left, "%s: no temporary left (%s)" % (tag, left))
            after = snapshot(mnt)
            check(all(after.get(k) == v for k, v in before.items()),
                  "%s: the files that existed before are unchanged" % tag)
            chkdir = os.path.join(out, "checkpoints")
            chks = sorted(f for f in (os.listdir(chkdir) if os.path.isdir(chkdir) else [])
                          if f.startswith("chk_"))
            if not chks and re.search(r"viz_000000(_p\d{6}\.vtu|\.h5)\.tmp", first):
                check(True, "%s: the first dump failed, before any checkpoint" % tag)
                continue
            if not check(chks, "%s: the checkpoints written before it are kept (%s)" % (tag, chks)):
                continue
            # Space freed: the newest checkpoint continues the run to the end.
            os.remove(os.path.join(mnt, "filler"))
            newest = os.path.join(out, "checkpoints", chks[-1])
            p = run(n, out, "mesh.refine_serial=4", "time.max_steps=12", "--restart", newest,
                    timeout=300)
            check(p.returncode == 0 and summary(out)["completed"] is True,
                  "%s: after freeing space, the restart from %s completes" % (tag, chks[-1]))
    finally:
        subprocess.run(["umount", mnt])


def main():
    if os.path.isdir(WORK):
        for f in os.listdir(WORK):
            p = os.path.join(WORK, f)
            if os.path.ismount(p):
                subprocess.run(["umount", p])
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    with open(DECK, "w") as f:
        f.write("[problem]\nname = sedov\nblast_energy = 1.0\n[mesh]\nfile = %s\nrefine_serial = 2\n"
                "[fem]\norder_kinematic = 2\n[time]\nt_final = 0.05\n[output]\nprint_every = 1000\n"
                % MESH)
    t0 = time.time()
    {"links": test_links, "signals": test_signals, "vizdt": test_vizdt,
     "fulldisk": test_fulldisk}[MODE]()
    print("%s: %d failure(s) in %.1f s" % (MODE, len(failures), time.time() - t0))
    for f in failures:
        print("  FAILED: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
