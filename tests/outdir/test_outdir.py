#!/usr/bin/env python3
"""End-to-end checks of the output directory policy (app/outdir.c).

  test_outdir.py BLAST MPIEXEC WORK DECK MESH_DIR

BLAST runs DECK (short: two steps) in the scratch folder WORK (recreated):
  1. a fresh directory is created and gets summary.json; no probe file is left behind;
  2. a second run into it stops at start-up with exit code 2 and one message naming the
     directory and [output] overwrite; the earlier summary.json is untouched;
  3. with output.overwrite=true it runs and replaces summary.json;
  4. the same refusal on 2 MPI ranks: exit code 2, the message once;
  5. a path that runs through a regular file, or is one: exit code 2, nothing created;
  6. a directory that takes no files: exit code 1 at start-up, before the setup;
  7. bad input (deck override, inverted mesh) still creates no directory.
Python 3 standard library only.
"""
import os, shutil, subprocess, sys

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, cwd):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    print("run:  %s\n      exit %d; stderr: %s" % (" ".join(cmd), p.returncode,
                                                   (p.stderr.splitlines() or [""])[0]))
    return p


def probes(folder):
    found = []
    for root, _, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if f.startswith(".blast_gpu_probe")]
    return found


def main():
    blast, mpiexec, work, deck, mesh_dir = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    short = ["time.max_steps=2", "mesh.refine_serial=1", "output.print_every=1000"]
    base = [blast, deck] + short

    # 1. Fresh directory.
    out = os.path.join(work, "runs", "a")
    p = run(base + ["output.dir=" + out], work)
    summary = os.path.join(out, "summary.json")
    check(p.returncode == 0 and os.path.isfile(summary), "fresh run: exit 0, summary.json written")
    check(not probes(work), "no probe file left behind")
    with open(summary) as f:
        first = f.read()

    # 2. Refusal.
    p = run(base + ["output.dir=" + out], work)
    check(p.returncode == 2, "second run into the same directory: exit code 2")
    check(p.stderr.count("blast_gpu: error") == 1, "one error message")
    check("holds the results of an earlier run" in p.stderr and out in p.stderr
          and "output.overwrite=true" in p.stderr and "[output] overwrite = true" in p.stderr,
          "the message names the directory and the key to set")
    check(p.stdout == "", "nothing on stdout (stopped before the setup)")
    with open(summary) as f:
        check(f.read() == first, "the earlier summary.json is untouched")

    # 3. Overwrite.
    os.utime(summary, (0, 0))
    p = run(base + ["output.dir=" + out, "output.overwrite=true"], work)
    check(p.returncode == 0 and os.stat(summary).st_mtime > 0, "overwrite=true: exit 0, "
          "summary.json rewritten")
    check("removed the earlier results" in p.stdout, "the run says it replaced the results")

    # 4. Refusal on 2 ranks.
    p = run([mpiexec, "-n", "2", "--oversubscribe"] + base + ["output.dir=" + out], work)
    check(p.returncode == 2, "2 ranks: exit code 2")
    check(p.stderr.count("blast_gpu: error") == 1 and
          p.stderr.count("holds the results of an earlier run") == 1, "2 ranks: the message once")

    # 5. Through a regular file, or a regular file.
    afile = os.path.join(work, "afile")
    with open(afile, "w") as f:
        f.write("not a directory\n")
    for target, text in ((os.path.join(afile, "sub"), "exists and is not a directory"),
                         (afile, "exists and is not a directory")):
        p = run(base + ["output.dir=" + target], work)
        check(p.returncode == 2 and text in p.stderr and afile in p.stderr,
              "output.dir=%s: exit code 2, '%s'" % (os.path.relpath(target, work), text))
    check(os.path.isfile(afile), "the regular file is left alone")

    # 6. A directory that takes no files (/proc for root; a read-only folder otherwise).
    targets = ["/proc/blast_gpu_outdir_test/out"]
    if os.geteuid() != 0:
        ro = os.path.join(work, "readonly")
        os.makedirs(ro)
        os.chmod(ro, 0o555)
        targets.append(os.path.join(ro, "out"))
    for target in targets:
        p = run(base + ["output.dir=" + target], work)
        check(p.returncode == 1 and "is not writable" in p.stderr and target in p.stderr,
              "output.dir=%s: exit code 1, 'is not writable'" % target)
        check(p.stdout == "", "stopped at start-up (nothing on stdout)")
    if os.geteuid() != 0:
        os.chmod(os.path.join(work, "readonly"), 0o755)

    # 7. Bad input writes nothing, also after the directory check passed.
    for extra, code in ((["time.cfl=-1"], 2),
                        (["mesh.file=" + os.path.join(mesh_dir, "inverted_zone.mesh"),
                          "mesh.refine_serial=0"], 2)):
        target = os.path.join(work, "bad")
        p = run([blast, deck, "output.dir=" + target] + extra, work)
        check(p.returncode == code and not os.path.exists(target),
              "bad input (%s): exit code %d, no directory created" % (extra[0], code))
    check(not probes(work), "no probe file left behind")

    if failures:
        sys.exit("FAIL: %d check(s) failed" % len(failures))
    print("PASS")


if __name__ == "__main__":
    main()
