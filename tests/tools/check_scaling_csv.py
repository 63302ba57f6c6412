#!/usr/bin/env python3
"""tools/scaling.py never loses rows of <study>.csv, and names a summary.json it cannot read.

    check_scaling_csv.py REPO BLAST WORKDIR

Tiny strong studies (3D Sedov box, 4x4x2 zones, 2 steps, 1 rank) into one --out:
  1. ranks 1, then a second study with ranks 2 into the same --out: both rows, the first
     one byte for byte as before;
  2. --overwrite of ranks 1: its row replaced, the ranks-2 row kept byte for byte;
  3. a <study>.csv with other columns (another tool's, a header only, a ragged row): refused
     with exit 2 before anything runs, the file unchanged (sha1), no run folder made;
  4. a summary.json the run leaves unreadable (invalid JSON, not UTF-8, a JSON array,
     empty), through a --wrapper that rewrites it after blast_gpu: exit 1, the file named,
     no traceback, a "failed (bad summary.json)" row, and the earlier rows kept.
"""
import csv
import hashlib
import os
import shutil
import subprocess
import sys
import time

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, file=sys.stdout if cond else sys.stderr)
    failures += 0 if cond else 1


def sha1(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def lines(path):
    with open(path, newline="") as f:
        return f.read().splitlines()


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    repo, blast, work = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    t0 = time.time()
    scaling = [sys.executable, os.path.join(repo, "tools", "scaling.py"), "strong", "--blast",
               blast, "--elements", "4 4 2", "--steps", "2", "--backend", "cpu"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

    def study(out, ranks, *extra):
        p = subprocess.run(scaling + ["--out", out, "--ranks", ranks] + list(extra), env=env,
                           capture_output=True, text=True, timeout=240)
        return p.returncode, p.stdout, p.stderr

    # 1. A second study into the same --out appends.
    out = os.path.join(work, "out")
    csvp = os.path.join(out, "strong.csv")
    rc, o, e = study(out, "1")
    check(rc == 0, "study ranks 1: exit %d %s" % (rc, e[-300:]))
    first = lines(csvp)
    check(len(first) == 2, "strong.csv: header + 1 row (%d lines)" % len(first))
    rc, o, e = study(out, "2")
    check(rc == 0, "study ranks 2 into the same --out: exit %d %s" % (rc, e[-300:]))
    both = lines(csvp)
    check(len(both) == 3 and both[:2] == first,
          "strong.csv: the ranks-1 row kept byte for byte, the ranks-2 row appended (%d lines)"
          % len(both))
    check([r["ranks"] for r in rows(csvp)] == ["1", "2"], "strong.csv: ranks 1, 2")
    r2 = (rows(csvp) + [{}, {}])[1]
    check(r2.get("status") == "ok" and float(r2.get("efficiency") or 0) > 0,
          "ranks-2 row: ok, efficiency against the earlier ranks-1 row (%s)" % r2.get("efficiency"))

    # 2. --overwrite of one rank count replaces only its own row.
    rc, o, e = study(out, "1")
    check(rc == 2 and "already exists" in e and lines(csvp) == both,
          "rerun of ranks 1 without --overwrite refused, CSV unchanged (%d)" % rc)
    rc, o, e = study(out, "1", "--overwrite")
    after = lines(csvp)
    check(rc == 0 and len(after) == 3 and both[2] in after,
          "--overwrite ranks 1: exit %d, 3 lines, the ranks-2 row kept byte for byte" % rc)
    check(sorted(r["ranks"] for r in rows(csvp)) == ["1", "2"], "after --overwrite: ranks 1, 2")

    # 3. A CSV with other columns is never replaced.
    foreign = {"other-tool": "name,value\na,1\nb,2\n",
               "header-only-other": "study,ranks,threads\n",
               "ragged-row": None}
    for tag, text in foreign.items():
        d = os.path.join(work, "foreign-" + tag)
        os.makedirs(d)
        p = os.path.join(d, "strong.csv")
        if text is None:  # this tool's header, a row with an extra field
            text = both[0] + "\n" + both[1] + ",extra\n"
        with open(p, "w") as f:
            f.write(text)
        before = sha1(p)
        rc, o, e = study(d, "1")
        check(rc == 2 and p in e and "Traceback" not in e,
              "%s: refused with exit 2 naming the file (%d: %s)" % (tag, rc, e.strip()[-160:]))
        check(sha1(p) == before and sorted(os.listdir(d)) == ["strong.csv"],
              "%s: the CSV unchanged (sha1), no run folder made" % tag)

    # 4. A summary.json the tool cannot read: named, no traceback, earlier rows kept.
    bad = {"invalid-json": b'{"deck": "a"b", "zones": 32}\n',
           "not-utf8": b'{"deck": "\xff\xfe", "zones": 32}\n',
           "json-array": b"[1, 2, 3]\n",
           "empty": b"",
           "zones-text": b'{"zones": "many", "steps": 2}\n'}
    for tag, content in bad.items():
        d = os.path.join(work, "bad-" + tag)
        shutil.copytree(out, d, symlinks=True)
        with open(os.path.join(d, "strong.csv"), newline="") as f:
            kept = f.read().splitlines()
        wrap = os.path.join(work, "wrap-" + tag)
        with open(wrap, "w") as f:
            f.write("#!/bin/sh\n\"$@\" || exit $?\nfor a in \"$@\"; do case \"$a\" in "
                    "output.dir=*) d=${a#output.dir=} ;; esac; done\n"
                    "printf '%%s' '%s' | base64 -d > \"$d/summary.json\"\n"
                    % __import__("base64").b64encode(content).decode())
        os.chmod(wrap, 0o755)
        rc, o, e = study(d, "4", "--wrapper", wrap)
        summ = os.path.join(d, "strong_np4", "summary.json")
        check(rc == 1 and summ in e and "Traceback" not in e,
              "%s: exit 1, the file named, no traceback (%d: %s)" % (tag, rc, e.strip()[-200:]))
        now = lines(os.path.join(d, "strong.csv"))
        check(now[:3] == kept[:3] and len(now) == 4, "%s: the 2 earlier rows kept byte for byte"
              % tag)
        last = (rows(os.path.join(d, "strong.csv")) or [{}])[-1]
        check(last.get("ranks") == "4" and last.get("status") == "failed (bad summary.json)",
              "%s: a failed row for ranks 4 (%s)" % (tag, last.get("status")))
    if failures:
        print("%d check(s) failed" % failures, file=sys.stderr)
        return 1
    print("check_scaling_csv: all checks passed in %.1f s" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
