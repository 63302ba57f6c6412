#!/usr/bin/env python3
"""Resource exhaustion through the executable.

  test_limits.py BLAST MPIEXEC WORK INPUTS

Every hostile run must stop at once with exit code 2 and one message that names the file
or the deck keys, use little time and memory, change no file in WORK and create no output
directory:
  * special files as mesh or deck: /dev/zero, /dev/urandom, a FIFO (must not block), a
    directory;
  * a huge (sparse, 20 GiB) mesh file; a small mesh file declaring absurd counts;
  * sizes that overflow the 32-bit indices: refine_parallel = 12 in 3D and in 2D, order 8
    with many zones, refine_serial too large in 2D and 3D, huge [mesh] elements;
  * sizes that fit the indices but not the memory (run under ulimit -v): the memory
    estimate stops them with the numbers, not an allocation failure.
Every run is started under an address-space limit (resource.setrlimit) and a timeout.
Python 3 standard library only.
"""
import hashlib, os, resource, shutil, subprocess, sys, time

failures = []
LIMIT_AS = 4000 * 1024 * 1024  # every run: at most ~4 GB of address space
SMALL_AS = 900 * 1024 * 1024  # the memory-estimate cases: above the program's own size (below)


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def limiter(limit):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return f


def run(cmd, cwd, limit=LIMIT_AS, timeout=60):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env,
                           timeout=timeout, preexec_fn=limiter(limit))
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, str(e.stdout or ""), str(e.stderr or "")
    wall = time.time() - t0
    # ru_maxrss of the children is the largest so far: meaningful when it grew.
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print("run:  %s\n      exit %s in %.1f s; stderr: %s" % (
        " ".join(cmd), rc, wall, (err.splitlines() or [""])[0][:400]), flush=True)
    return rc, out, err, wall, max(rss_kb, before)


def md5_tree(folder, skip):
    sums = {}
    for root, dirs, files in os.walk(folder):
        for f in files:
            path = os.path.join(root, f)
            if any(path.startswith(s) for s in skip) or not os.path.isfile(path):
                continue
            st = os.stat(path)
            if st.st_size > 64 << 20:  # the sparse 20 GiB file: size and mtime only
                sums[path] = (st.st_size, st.st_mtime)
                continue
            with open(path, "rb") as fh:
                sums[path] = hashlib.md5(fh.read()).hexdigest()
    return sums


def main():
    blast, mpiexec, work, inputs = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copytree(os.path.join(inputs, "meshes"), os.path.join(work, "meshes"))
    for deck in ("sedov2d.ini", "sedov3d.ini"):
        shutil.copy(os.path.join(inputs, deck), work)
    # The same problems on the box generator ([mesh] dim, elements instead of file).
    for dim in (2, 3):
        with open(os.path.join(work, "sedov%dd.ini" % dim)) as f:
            text = [l for l in f if not l.replace(" ", "").startswith("file=")]
        with open(os.path.join(work, "box%dd.ini" % dim), "w") as f:
            f.write("".join(text).replace("[mesh]\n", "[mesh]\ndim = %d\n" % dim))
    short = ["time.max_steps=2", "output.print_every=1000"]
    d2 = [blast, "sedov2d.ini"] + short
    d3 = [blast, "sedov3d.ini"] + short
    b2 = [blast, "box2d.ini"] + short
    b3 = [blast, "box3d.ini"] + short

    # An earlier run's output folder (tiny successful run), which no refusal may touch.
    rc, _, _, _, _ = run(d2 + ["mesh.refine_serial=1", "output.dir=earlier"], work)
    check(rc == 0 and os.path.isfile(os.path.join(work, "earlier", "summary.json")),
          "a tiny run succeeds and writes earlier/summary.json")

    # The program's own address space (a CUDA build maps ~1 GB of libraries): the memory
    # cases get SMALL_AS above it, so that the estimate, not the libraries, decides.
    global SMALL_AS
    p = subprocess.Popen(d2 + ["mesh.refine_serial=3", "time.max_steps=200", "output.dir=vm"], cwd=work,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    vm_kb = 0
    while p.poll() is None:
        try:
            with open("/proc/%d/status" % p.pid) as f:
                for line in f:
                    if line.startswith("VmPeak:"):
                        vm_kb = max(vm_kb, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.01)
    SMALL_AS += vm_kb * 1024
    print("program address space: %.2f GiB peak; memory cases limited to %.2f GiB"
          % (vm_kb / 2**20, SMALL_AS / 2**30), flush=True)
    shutil.rmtree(os.path.join(work, "vm"), ignore_errors=True)

    # Hostile files.
    os.mkfifo(os.path.join(work, "fifo"))
    os.mkdir(os.path.join(work, "dir.mesh"))
    with open(os.path.join(work, "huge.mesh"), "wb") as f:
        f.truncate(20 << 30)  # sparse: no disk space
    with open(os.path.join(work, "absurd.mesh"), "w") as f:
        f.write("MFEM mesh v1.0\n\ndimension\n2\n\nelements\n1099511627776\n1 3 0 1 2 3\n")
    with open(os.path.join(work, "absurd2.mesh"), "w") as f:
        f.write("MFEM mesh v1.0\ndimension\n3\nelements\n200000000\n1 5 0 1 2 3 4 5 6 7\n")
    with open(os.path.join(work, "absurd3.mesh"), "w") as f:
        f.write("MFEM mesh v1.0\ndimension\n2\nelements\n1\n1 3 0 1 2 3\nboundary\n0\n"
                "vertices\n700000000\n2\n0 0\n")

    with open(os.path.join(work, "huge.ini"), "wb") as f:
        f.truncate(2 << 20)  # a 2 MiB "deck"

    before = md5_tree(work, [os.path.join(work, "huge.mesh")])
    entries = set(os.listdir(work))

    # (name, command, what the first line must contain, ranks, memory limit)
    fifo = os.path.join(work, "fifo")
    cases = [
        ("mesh /dev/zero", d2 + ["mesh.file=/dev/zero"],
         ["'/dev/zero' is a character device, not a regular mesh file"]),
        ("mesh /dev/urandom", d2 + ["mesh.file=/dev/urandom"],
         ["'/dev/urandom' is a character device, not a regular mesh file"]),
        ("mesh FIFO", d2 + ["mesh.file=" + fifo], ["'%s' is a FIFO, not a regular mesh file" % fifo]),
        ("deck FIFO", [blast, "fifo"], ["fifo: cannot read the deck: it is a FIFO"]),
        ("deck /dev/zero", [blast, "/dev/zero"], ["/dev/zero: cannot read the deck: it is a character device"]),
        ("deck directory", [blast, "meshes"], ["meshes: cannot read the deck: it is a directory"]),
        ("deck of 2 MiB", [blast, "huge.ini"], ["huge.ini: cannot read the deck: it has more than 1048576 bytes"]),
        ("mesh directory", d2 + ["mesh.file=dir.mesh"], ["dir.mesh' is a directory, not a regular mesh file"]),
        ("mesh 20 GiB sparse file", d2 + ["mesh.file=huge.mesh"],
         ["huge.mesh' has 21474836480 bytes (20.00 GiB), more than the 1.00 GiB a mesh file may have"]),
        ("mesh declaring 2^40 elements", d2 + ["mesh.file=absurd.mesh"], ["absurd.mesh:7:", "1099511627776"]),
        ("mesh declaring 2e8 elements in 98 bytes", d3 + ["mesh.file=absurd2.mesh", "mesh.refine_serial=0"],
         ["absurd2.mesh:", "unexpected end of file"]),
        ("mesh declaring 7e8 vertices", d2 + ["mesh.file=absurd3.mesh", "mesh.refine_serial=0"],
         ["absurd3.mesh:", "unexpected end of file"]),
        ("3D refine_parallel = 12", d3 + ["mesh.refine_parallel=12"],
         ["[mesh] refine_serial = 2, refine_parallel = 12, [fem] order_kinematic = 2", "32-bit"]),
        ("2D refine_parallel = 12", d2 + ["mesh.refine_parallel=12"],
         ["refine_parallel = 12", "32-bit"]),
        ("3D order 8 with many zones", d3 + ["fem.order_kinematic=8", "fem.order_thermo=7", "mesh.refine_parallel=6"],
         ["refine_parallel = 6, [fem] order_kinematic = 8", "32-bit"]),
        ("2D refine_serial = 12, 64 zones", b2 + ["mesh.elements=8 8", "mesh.refine_serial=12"],
         ["[mesh] refine_serial = 12:"]),
        ("2D refine_serial = 12 overflows", b2 + ["mesh.elements=256 256", "mesh.refine_serial=12"],
         ["[mesh] refine_serial = 12: refining the 65536 zones", "32-bit"]),
        ("3D refine_serial = 10", d3 + ["mesh.refine_serial=10"], ["[mesh] refine_serial = 10:"]),
        ("3D elements huge", b3 + ["mesh.elements=100000 100000 100000"],
         ["[mesh] elements = 100000 100000 100000:"]),
        ("2D elements large", b2 + ["mesh.elements=12000 12000", "mesh.refine_serial=0"],
         ["[mesh] elements = 12000 12000:", "GiB"]),
    ]
    # The memory estimate: sizes that fit the indices, not ~1.2 GB of address space.
    mem_cases = [
        ("2D Q2 1M zones under ulimit -v", d2 + ["mesh.refine_parallel=6"],
         ["[mesh] refine_serial = 3, refine_parallel = 6, [fem] order_kinematic = 2", "estimated before allocating",
          "ulimit -v", "lower [mesh] refine_parallel"]),
        # (partial assembly, the default, fits refine_parallel = 2)
        ("3D Q3 under ulimit -v", d3 + ["fem.order_kinematic=3", "mesh.refine_parallel=3"],
         ["refine_parallel = 3, [fem] order_kinematic = 3", "estimated before allocating", "ulimit -v"]),
        ("3D Q3 assembled under ulimit -v",
         d3 + ["fem.order_kinematic=3", "mesh.refine_parallel=2", "fem.assembly=full"],
         ["refine_parallel = 2, [fem] order_kinematic = 3", "estimated before allocating", "ulimit -v"]),
    ]
    for ranks in (1, 3):  # 3 ranks: the same message, once (rank 0), on every rank exit 2
        for name, cmd, expect in cases + mem_cases:
            limit = SMALL_AS if any(name == n for n, _, _ in mem_cases) else LIMIT_AS
            full = ([mpiexec, "-n", str(ranks), "--oversubscribe"] if ranks > 1 else []) + cmd
            rc, out, err, wall, _ = run(full + ["output.dir=should_not_exist"], work, limit=limit,
                                        timeout=60)
            tag = "%s (%d rank%s)" % (name, ranks, "s" if ranks > 1 else "")
            check(rc == 2, tag + ": exit code 2 (got %s)" % rc)
            first = (err.splitlines() or [""])[0]
            check(first.startswith("blast_gpu: error: ") and all(e in first for e in expect),
                  tag + ": the message names the file/keys: %s" % expect)
            check(err.count("blast_gpu: error") == 1, tag + ": printed once")
            check("MPI_ABORT" not in err and "Killed" not in err and "out of memory" not in err
                  and "could not allocate" not in err, tag + ": no abort, no allocation failure")
            check(wall < 20, tag + ": at once (%.1f s)" % wall)
    # Memory of the refused runs: the children's peak RSS over all of them.
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    check(peak_kb < 1024 * 1024, "every run stayed below 1 GB resident (peak %.0f MB)" % (peak_kb / 1024))

    after = md5_tree(work, [os.path.join(work, "huge.mesh")])
    check(before == after, "every pre-existing file unchanged (md5: deck, meshes, earlier run)")
    check(set(os.listdir(work)) == entries, "no file or output directory created (%s)" %
          sorted(set(os.listdir(work)) ^ entries))
    check(os.path.getsize(os.path.join(work, "huge.mesh")) == 20 << 30, "the huge file untouched")

    print("\n%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
