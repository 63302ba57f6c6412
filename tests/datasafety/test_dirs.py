#!/usr/bin/env python3
"""Folders a run writes, through the real executable: compared by what they are, owned and
locked for the run's lifetime, dumps counted as results, nothing written through a link.

usage: test_dirs.py BLAST MPIEXEC WORKDIR

Every refused run must exit 2, say why once, and leave every file that existed before it
unchanged (sha1 of each file in the work directory, link targets included, before/after).

  1. one folder by several spellings: checkpoint.dir through '..', through a symbolic link,
     './o', '$PWD/o', 'o/', 'o/.' (the output folder itself: runs; another run's folder:
     refused before the setup);
  2. every folder is held: the default checkpoints and the dump folder of a running run,
     a checkpoint folder outside the output folder, the folders of an ended run and of a
     run killed in a checkpoint (refused unless output.overwrite=true);
  3. dumps are results: a folder of a run that died without a summary, a restart into a
     folder whose series is another run's, a viz folder or a dump that is a link;
  4. a stale run-marker temporary or a lock file that is a link is never written through.
"""
import fcntl
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time

BLAST, MPIEXEC, WORK = sys.argv[1:4]
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


DECK = "box.ini"
LONG = "long.ini"
SHORT = ["checkpoint.steps=2", "output.viz_steps=2", "output.viz_refine=1"]


def write_decks():
    base = ("[problem]\nname = sedov\nblast_energy = 1.0\n[mesh]\ndim = 2\nelements = %d %d\n"
            "size = 1 1\n[fem]\norder_kinematic = 2\n[time]\nt_final = %s\n[output]\n"
            "print_every = 100000\n")
    with open(path(DECK), "w") as f:
        f.write(base % (4, 4, "1.0"))
    with open(path(LONG), "w") as f:
        f.write(base % (16, 16, "100.0"))


def cmd(n, deck, *extra):
    if deck == DECK and not any(a.startswith("time.max_steps=") for a in extra):
        extra = ("time.max_steps=6",) + extra
    return [MPIEXEC, "-n", str(n), "--oversubscribe", BLAST, deck] + list(extra)


def run(n, *args, expect=0, env=None):
    p = subprocess.run(cmd(n, DECK, *args), capture_output=True, text=True, cwd=WORK,
                       env=env or ENV, timeout=300)
    if expect is not None and p.returncode != expect:
        print(p.stdout[-2000:], p.stderr[-3000:])
        check(False, "%s exited with %d, expected %d" % (" ".join(args), p.returncode, expect))
    return p


def snapshot(exclude=()):
    snap = {}
    for root, dirs, files in os.walk(WORK):
        if any(root == e or root.startswith(e + os.sep) for e in exclude):
            continue
        for fn in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            p = os.path.join(root, fn)
            if os.path.islink(p):
                snap[os.path.relpath(p, WORK)] = "link:" + os.readlink(p)
                continue
            with open(p, "rb") as f:
                snap[os.path.relpath(p, WORK)] = hashlib.sha1(f.read()).hexdigest()
    return snap


def refused(what, n, *args, regex, live=(), no_banner=True):
    before = snapshot(live)
    p = run(n, *args, expect=None)
    errors = [l for l in p.stderr.splitlines() if "blast_gpu: error" in l]
    first = errors[0] if errors else ""
    check(p.returncode == 2, "%s (%d ranks): exit %d (want 2): %s" % (what, n, p.returncode, first[:300]))
    check(re.search(regex, p.stderr) is not None, "%s (%d ranks): message matches /%s/" % (what, n, regex))
    check(len(errors) == 1, "%s (%d ranks): the message is printed once (%d)" % (what, n, len(errors)))
    after = snapshot(live)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    check(not changed, "%s (%d ranks): every earlier file is unchanged %s" % (what, n, changed[:5]))
    if no_banner:
        check("blast_gpu " not in p.stdout, "%s (%d ranks): refused before the setup" % (what, n))
    return p


def ran_not_through(what, n, *args, target_dir, link):
    """The run goes on (exit 0); every file of target_dir (a link's target) is unchanged and
    the link, if given, is no longer a link."""
    before = snapshot([])
    tb = {k: v for k, v in before.items() if k.startswith(os.path.basename(target_dir) + "/")}
    p = run(n, *args, expect=None)
    check(p.returncode == 0, "%s (%d ranks): exit %d (want 0): %s" % (what, n, p.returncode,
                                                                      p.stderr[:300]))
    after = snapshot([])
    ta = {k: v for k, v in after.items() if k in tb}
    check(ta == tb and tb, "%s (%d ranks): the link's target is unchanged" % (what, n))
    if link:
        check(not os.path.islink(link), "%s (%d ranks): the link itself is gone" % (what, n))
    return p


def chk_files(d):
    return sorted(f for f in os.listdir(d) if re.fullmatch(r"chk_\d{8}\.h5", f))


def newest_chk(out):
    return os.path.join(out, "checkpoints", chk_files(path(out, "checkpoints"))[-1])


def xdmf_times(out):
    with open(path(out, "viz", "blast.xdmf")) as f:
        return [float(t) for t in re.findall(r'<Time Value="([^"]+)"', f.read())]


def wait_for(cond, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def unlocked(d):
    with open(os.path.join(d, ".blast_gpu.lock")) as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
    return True


def start_long(*args):
    p = subprocess.Popen(cmd(1, LONG, *args), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=WORK, env=ENV, start_new_session=True)
    return p


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    write_decks()
    os.makedirs(path("T"))  # foreign files that links point at
    for name in ("notes.txt", "victim", "victim2", "viz_000000.h5"):
        with open(path("T", name), "w") as f:
            f.write("foreign %s\n" % name)

    # Two ended runs with checkpoints and dumps.
    run(1, "output.dir=A", *SHORT)
    run(2, "output.dir=B", *SHORT)
    chkB = path(newest_chk("B"))

    # 1. One folder by several spellings.
    os.makedirs(path("E"))
    refused("restart, checkpoint.dir=E/../A/checkpoints", 1, "output.dir=E",
            "checkpoint.dir=E/../A/checkpoints", *SHORT, "time.max_steps=12", "--restart", chkB,
            regex=r"holds the results of another run")
    refused("restart, checkpoint.dir=new/../A/checkpoints", 2, "output.dir=N",
            "checkpoint.dir=N/../A/checkpoints", *SHORT, "time.max_steps=12", "--restart", chkB,
            regex=r"'\.\.'|holds the results of another run")
    os.symlink("A", path("LA"))
    refused("restart, checkpoint.dir through a link to another run's folder", 1, "output.dir=E",
            "checkpoint.dir=LA/checkpoints", *SHORT, "time.max_steps=12", "--restart", chkB,
            regex=r"holds the results of another run")
    refused("restart, checkpoint.dir a link to another run's output folder", 2, "output.dir=E",
            "checkpoint.dir=LA", *SHORT, "time.max_steps=12", "--restart", chkB,
            regex=r"holds the results of another run")
    for i, (out, chk, n) in enumerate([("o1", "./o1", 1), ("o2", "$PWD/o2", 2), ("o3", "o3/", 1),
                                       ("o4", "o4/.", 1), ("./o5/", "o5", 2)]):
        chk = chk.replace("$PWD", WORK)
        p = run(n, "output.dir=" + out, "checkpoint.dir=" + chk, *SHORT)
        name = os.path.normpath(out)
        check(p.returncode == 0 and "in use" not in p.stderr,
              "checkpoint.dir=%s for output.dir=%s: the same folder, runs (exit %d)" % (chk, out, p.returncode))
        check(os.path.exists(path(name, "summary.json")) and chk_files(path(name)),
              "checkpoint.dir=%s: checkpoints and summary in %s" % (chk, name))
        check(not os.path.exists(path(name, "checkpoints")), "checkpoint.dir=%s: no checkpoints/ folder" % chk)
    # A restart of a run through another spelling of its own folder continues it.
    shutil.copytree(path("A"), path("A2"), symlinks=True)
    p = run(1, "output.dir=A2", "checkpoint.dir=%s/A2/checkpoints/." % WORK, *SHORT,
            "time.max_steps=10", "--restart", newest_chk("A2"))
    check(p.returncode == 0, "restart of its own run through $PWD/A2/checkpoints/.: runs")

    # 2. Every folder a run writes is held.
    r = start_long("output.dir=R", "checkpoint.steps=1", "output.viz_steps=1",
                   "output.viz_refine=1")
    q = start_long("output.dir=Q", "checkpoint.dir=QK", "checkpoint.steps=1")
    ok = wait_for(lambda: os.path.exists(path("R", "checkpoints")) and os.path.exists(path("R", "viz"))
                  and os.path.exists(path("QK", ".blast_gpu.lock"))
                  and os.path.getsize(path("QK", ".blast_gpu.lock")) > 0)
    check(ok, "the long runs started")
    live = (path("R"), path("Q"), path("QK"))
    refused("checkpoint.dir = the default checkpoints of a running run", 1, "output.dir=F1",
            "checkpoint.dir=R/checkpoints", *SHORT, regex=r"in use by another blast_gpu run", live=live)
    refused("checkpoint.dir = the dump folder of a running run", 2, "output.dir=F1",
            "checkpoint.dir=R/viz", *SHORT, regex=r"in use by another blast_gpu run", live=live)
    refused("checkpoint.dir = a running run's checkpoint folder outside its output", 1,
            "output.dir=F1", "checkpoint.dir=QK", *SHORT, regex=r"in use by another blast_gpu run",
            live=live)
    refused("output.dir = a running run's checkpoint folder", 1, "output.dir=./QK/", *SHORT,
            regex=r"in use by another blast_gpu run", live=live)
    os.symlink("R", path("LR"))
    refused("checkpoint.dir = a running run's checkpoints through a link", 1, "output.dir=F1",
            "checkpoint.dir=LR/checkpoints", *SHORT, regex=r"in use by another blast_gpu run",
            live=live)
    for p in (r, q):
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    check(wait_for(lambda: unlocked(path("R")) and unlocked(path("QK"))),
          "the killed runs' locks are free")
    # R and Q died without a summary: their folders hold results.
    refused("fresh run into a killed run's folder (checkpoints, dumps)", 1, "output.dir=R", *SHORT,
            regex=r"holds")
    refused("checkpoint.dir = a killed run's checkpoints", 2, "output.dir=F2",
            "checkpoint.dir=R/checkpoints", *SHORT, regex=r"holds")
    refused("checkpoint.dir = a killed run's outside checkpoint folder", 1, "output.dir=F2",
            "checkpoint.dir=./QK", *SHORT, regex=r"holds")
    refused("checkpoint.dir = an ended run's checkpoints", 1, "output.dir=F2",
            "checkpoint.dir=A/checkpoints", *SHORT, regex=r"holds")
    p = run(1, "output.dir=R", "output.overwrite=true", *SHORT)
    check(p.returncode == 0 and xdmf_times("R") == xdmf_times("A"),
          "output.overwrite=true replaces a killed run's results (%d dumps)" % len(xdmf_times("R")))

    # 3. Dumps are results.
    os.makedirs(path("V"))
    shutil.copytree(path("A", "viz"), path("V", "viz"))
    refused("fresh run into a folder with dumps and no summary", 1, "output.dir=V", *SHORT,
            regex=r"holds the results of an earlier run.*viz")
    refused("fresh run without dumps into a folder with dumps", 2, "output.dir=V",
            "time.max_steps=2", regex=r"holds the results of an earlier run.*viz")
    refused("restart into a folder whose series is another run's (no marker)", 1, "output.dir=V",
            *SHORT, "time.max_steps=12", "--restart", chkB, regex=r"holds the results of another run")
    shutil.copytree(path("A"), path("A3"), symlinks=True)
    os.remove(path("A3", "summary.json"))
    refused("restart into a folder whose series is another run's (marker)", 2, "output.dir=A3",
            *SHORT, "time.max_steps=12", "--restart", chkB, regex=r"holds the results of another run")
    os.makedirs(path("Y"))
    os.symlink("../T", path("Y", "viz"))
    refused("viz folder that is a link", 1, "output.dir=Y", *SHORT, regex=r"symbolic link")
    refused("viz folder that is a link, overwrite", 2, "output.dir=Y", "output.overwrite=true", *SHORT,
            regex=r"symbolic link")
    os.makedirs(path("Z", "viz"))
    os.symlink("../../T/viz_000000.h5", path("Z", "viz", "viz_000001.h5"))
    # A dump that is a link counts as an earlier run's result: refused, or with overwrite the
    # link itself removed; its target is never written or deleted.
    refused("dump that is a link", 1, "output.dir=Z", *SHORT,
            regex=r"holds the results of an earlier run")
    ran_not_through("dump that is a link, overwrite", 1, "output.dir=Z", "output.overwrite=true",
                    *SHORT, target_dir=path("T"), link=path("Z", "viz", "viz_000001.h5"))
    shutil.copytree(path("A"), path("A4"), symlinks=True)
    os.remove(path("A4", "viz", "viz_000002.h5"))
    os.symlink("../../T/viz_000000.h5", path("A4", "viz", "viz_000002.h5"))
    ran_not_through("restart of its own run, a dump is a link", 1, "output.dir=A4", *SHORT,
                    "time.max_steps=12", "--restart", newest_chk("A4"), target_dir=path("T"),
                    link=None)
    os.makedirs(path("K"))
    os.symlink("../A/checkpoints", path("K", "checkpoints"))
    refused("default checkpoints folder that is a link", 1, "output.dir=K", *SHORT,
            regex=r"symbolic link")
    # A restart of its own run drops the dumps after the restart time: time never goes back.
    shutil.copytree(path("A"), path("A5"), symlinks=True)
    first = os.path.join("A5", "checkpoints", chk_files(path("A5", "checkpoints"))[0])
    p = run(1, "output.dir=A5", *SHORT, "time.max_steps=8", "--restart", first)
    times = xdmf_times("A5")
    check(p.returncode == 0 and all(a < b for a, b in zip(times, times[1:])),
          "restart of its own run: the series goes forward (%s)" % times)

    # 4. No write through a link: a stale marker temporary, a lock file.
    shutil.copytree(path("A"), path("A6"), symlinks=True)
    os.symlink("../T/victim", path("A6", ".blast_gpu_run.tmp"))
    before = snapshot()
    p = run(1, "output.dir=A6", *SHORT, "time.max_steps=10", "--restart", newest_chk("A6"))
    check(p.returncode == 0 and snapshot().get("T/victim") == before["T/victim"],
          "stale marker temporary that is a link: removed, its target unchanged")
    check(not os.path.islink(path("A6", ".blast_gpu_run")) and not os.path.lexists(path("A6", ".blast_gpu_run.tmp")),
          "the marker is a file of its own, no temporary left")
    os.makedirs(path("W"))
    os.symlink("../T/victim2", path("W", ".blast_gpu.lock"))
    refused("lock file that is a link", 2, "output.dir=W", *SHORT, regex=r"symbolic link")

    print("test_dirs: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
