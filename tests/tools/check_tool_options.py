#!/usr/bin/env python3
"""Every tool of tools/ and jobscripts/ (found by listing the folders, so that a new tool is
covered without editing this test) is executable, answers --help and -h with its usage on
stdout and exit 0, refuses --no-such-option with exit 2 and a message naming the option, and
writes nothing in either case.

    check_tool_options.py REPO WORKDIR

A tool is a file with a "#!" line; a file without one must be a Python module (*.py, not
executable, e.g. tools/blastviz_common.py). Each call runs in an empty folder of its own
with HOME and TMPDIR there too, and with stand-ins first on PATH for the commands a tool
could start by mistake (apt-get, sudo, cmake, mpirun, srun, sbatch, ...): a stand-in that
runs leaves a mark and fails, so a tool that goes on past its option parsing is caught
before it installs, builds or submits anything. Checked after each call: exit status,
output, no file in the folder (HOME and TMPDIR included) and no stand-in called.
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

STANDINS = ("apt-get", "apt", "sudo", "dpkg", "cmake", "ctest", "make", "mpirun", "mpiexec",
            "srun", "sbatch", "scontrol", "qsub", "bsub", "jsrun", "valgrind", "nvidia-smi",
            "nvidia-cuda-mps-control", "pvbatch", "xvfb-run", "git")
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, file=sys.stdout if cond else sys.stderr)
    failures += 0 if cond else 1


def tools_of(repo):
    found = []
    for top in ("tools", "jobscripts"):
        for d, subdirs, files in os.walk(os.path.join(repo, top)):
            subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
            for f in sorted(files):
                path = os.path.join(d, f)
                if f.endswith((".pyc", ".md")) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as fh:
                    first = fh.readline()
                rel = os.path.relpath(path, repo)
                if first.startswith(b"#!"):
                    found.append(rel)
                else:
                    check(f.endswith(".py") and not os.access(path, os.X_OK),
                          "%s: no #! line, so a module (*.py, not executable)" % rel)
    return found


def git_modes(repo):
    """{path: mode} of the git index, or {} when REPO is not a git checkout."""
    try:
        p = subprocess.run(["/usr/bin/git", "-C", repo, "ls-files", "-s", "tools", "jobscripts"],
                           capture_output=True, text=True, timeout=30)
    except OSError:
        return {}
    if p.returncode != 0:
        return {}
    modes = {}
    for line in p.stdout.splitlines():
        meta, _, path = line.partition("\t")
        modes[path] = meta.split()[0]
    return modes


def listing(root):
    out = []
    for d, subdirs, files in os.walk(root):
        for name in subdirs + files:
            out.append(os.path.relpath(os.path.join(d, name), root))
    return sorted(out)


def main():
    repo, work = (os.path.abspath(a) for a in sys.argv[1:3])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    fake = os.path.join(work, "standins")
    marks = os.path.join(work, "marks")
    os.makedirs(fake)
    os.makedirs(marks)
    for name in STANDINS:
        p = os.path.join(fake, name)
        with open(p, "w") as f:
            f.write("#!/bin/sh\necho \"$0 $*\" >> '%s/called'\necho \"stand-in %s called\" >&2\n"
                    "exit 97\n" % (marks, name))
        os.chmod(p, 0o755)
    tools = tools_of(repo)
    check(len(tools) >= 20, "%d tools found in tools/ and jobscripts/" % len(tools))
    modes = git_modes(repo)
    for rel in tools:
        path = os.path.join(repo, rel)
        check(os.stat(path).st_mode & stat.S_IXUSR != 0, "%s: executable (mode %o)"
              % (rel, stat.S_IMODE(os.stat(path).st_mode)))
        if modes:
            check(modes.get(rel) == "100755", "%s: mode in git %s" % (rel, modes.get(rel)))
        for arg in ("--help", "-h", "--no-such-option"):
            cwd = tempfile.mkdtemp(prefix="run-", dir=work)
            env = {"PATH": fake + ":" + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": cwd,
                   "TMPDIR": cwd, "LANG": "C.UTF-8", "USER": "tester", "OUT": "",
                   "SLURM_CONF": os.path.join(cwd, "no-slurm.conf")}
            try:
                p = subprocess.run([path, arg], cwd=cwd, env=env, capture_output=True, text=True,
                                   timeout=60, stdin=subprocess.DEVNULL)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = "timeout", "", ""
            except OSError as e:
                rc, out, err = "not started (%s)" % e, "", ""
            tag = "%s %s" % (rel, arg)
            if arg == "--no-such-option":
                check(rc == 2, "%s: exit %s (expected 2)" % (tag, rc))
                check("--no-such-option" in err, "%s: the message names the option: %r"
                      % (tag, err.strip()[-200:]))
            else:
                check(rc == 0, "%s: exit %s (expected 0); stderr %r" % (tag, rc, err.strip()[-300:]))
                check("usage" in out.lower() or len(out.strip().splitlines()) >= 3,
                      "%s: usage on stdout (%d lines)" % (tag, len(out.splitlines())))
            check("Traceback" not in err, "%s: no traceback" % tag)
            left = listing(cwd)
            check(not left, "%s: nothing written in the folder (found %s)" % (tag, left[:5]))
            called = os.path.join(marks, "called")
            if os.path.exists(called):
                with open(called) as f:
                    check(False, "%s: started %s" % (tag, f.read().strip()))
                os.unlink(called)
            shutil.rmtree(cwd, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % failures, file=sys.stderr)
        return 1
    print("check_tool_options: %d tools, all checks passed" % len(tools))
    return 0


if __name__ == "__main__":
    sys.exit(main())
