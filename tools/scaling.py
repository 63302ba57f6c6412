#!/usr/bin/env python3
"""Weak and strong scaling studies of blast_gpu (docs/jobs.md). Python 3 standard library.

    tools/scaling.py weak   --blast BIN --out DIR [--ranks 1,2,4,8] [options] [-- key=value ...]
    tools/scaling.py strong --blast BIN --out DIR [--ranks 1,2,4,8] [options] [-- key=value ...]
    tools/scaling.py run    --blast BIN --out DIR --ranks 8 [options] [-- key=value ...]

weak    zones per rank fixed: one rank runs the base deck's box ([mesh] elements, size) or
        --zones-per-rank; N ranks run N such blocks, N factored over the dimensions as evenly
        as possible (8 ranks in 3D: 2 x 2 x 2 blocks), so the zones keep their shape.
strong  one global box (--elements, default the deck's) on every rank count.
run     the deck as it is, on each rank count (no mesh change).

Each run gets DIR/<study>_np<N>/ with the resolved deck (deck.ini), the command line
(command.txt), the environment (env.txt: variables, host, cores, lscpu), the GPUs
(gpu.txt: nvidia-smi), the source version (git.txt), stdout.txt, stderr.txt and the run's
summary.json; DIR/<study>.csv has one row per run (a later study into the same DIR adds
its rows after those already there, which are kept as they are; --overwrite reruns a rank
count in place, replacing its folder and row; a <study>.csv with other columns is refused,
never replaced). Time per step = the step timer of the
slowest rank (summary timing.steps_max) / step attempts; setup is excluded. Efficiency is
relative to the smallest rank count: zone-steps per second per rank.

The launcher: --launcher auto (default) builds an mpirun line (Open MPI: binding to cores,
PE=threads when the cores suffice, --oversubscribe otherwise; MPICH/Intel MPI: -n only);
any other string is used as given with {n} (ranks), {threads}, {ppn} (ranks per node:
min(n, --ranks-per-node)) and {nodes} (ceil(n / ppn)) replaced, and "-n N" appended when
it has no {n}, e.g. --launcher "srun -N {nodes} -n {n} -c {threads} --cpu-bind=cores". --wrapper CMD goes between the launcher and blast_gpu (e.g.
jobscripts/mps-wrapper.sh). Exit status: 0 if every run succeeded, 1 otherwise, 2 for
bad usage.
"""
import argparse
import csv
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from cli_options import refuse_unknown_options  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DECK = os.path.join(REPO, "bench", "cpu", "sedov3d_box.ini")
ENV_KEYS = ("OMP_", "OMPI_", "PMIX_", "SLURM_", "PBS_", "LSB_", "CUDA_", "NVIDIA_", "MPICH_",
            "I_MPI_", "BLAST_", "UCX_", "HWLOC_", "GOMP_", "KMP_")
ENV_NAMES = ("PATH", "LD_LIBRARY_PATH", "HOSTNAME", "USER")
CSV_FIELDS = ["study", "ranks", "threads", "zones", "zones_per_rank", "h1_dofs", "steps",
              "step_attempts", "seconds_per_step", "steps_seconds", "wall_seconds",
              "setup_seconds", "speedup", "efficiency", "e_norm", "cg_iterations", "backend"]
ENERGY_FIELDS = ["energy_total_joules", "energy_gpu_joules", "energy_cpu_package_joules",
                 "energy_dram_joules", "average_watts", "joules_per_zone_step",
                 "energy_sources"]


class UsageError(Exception):
    pass


def factor(n, dim):
    """n as a product of dim factors, as equal as possible, largest first."""
    f = [1] * dim
    primes, m, p = [], n, 2
    while m > 1:
        while m % p == 0:
            primes.append(p)
            m //= p
        p += 1
    for q in sorted(primes, reverse=True):
        i = f.index(min(f))
        f[i] *= q
    return sorted(f, reverse=True)


def parse_deck(text):
    """The INI text of `blast_gpu --print-deck` as {section: {key: value}}."""
    deck, sec = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";") or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            sec = deck.setdefault(line[1:-1].strip(), {})
            continue
        if "=" in line and sec is not None:
            k, v = line.split("=", 1)
            sec[k.strip()] = v.split(" ;")[0].strip()
    return deck


def run_capture(cmd, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)
        return p.returncode, p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def mpi_flavor(mpirun):
    rc, out = run_capture([mpirun, "--version"])
    if "Open MPI" in out or "OpenRTE" in out:
        return "openmpi"
    return "hydra" if rc == 0 else "unknown"


def launcher_cmd(args, n):
    """The launcher part of the command line for n ranks."""
    t = args.threads
    if args.launcher != "auto":
        ppn = min(n, args.ranks_per_node) if args.ranks_per_node else n
        nodes = -(-n // ppn)
        sub = {"{n}": n, "{threads}": t, "{ppn}": ppn, "{nodes}": nodes}
        words = []
        for w in shlex.split(args.launcher):
            for k, v in sub.items():
                w = w.replace(k, str(v))
            words.append(w)
        if "{n}" not in args.launcher:
            words += ["-n", str(n)]
        return words
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if not mpirun:
        raise UsageError("no mpirun/mpiexec on PATH: pass --launcher")
    if args._flavor is None:
        args._flavor = mpi_flavor(mpirun)
    cmd = [mpirun, "-n", str(n)]
    cores = args.cores or os.cpu_count() or 1
    fits = n * t <= cores
    if args._flavor == "openmpi":
        if fits:
            cmd += ["--map-by", "slot:PE=%d" % t, "--bind-to", "core"]
        else:
            cmd += ["--oversubscribe", "--bind-to", "none"]
        for v in ("OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND"):
            cmd += ["-x", v]
    elif args._flavor == "hydra" and fits and t == 1:
        cmd += ["-bind-to", "core"]
    return cmd


def shown(path):
    """A path as short as it gets: relative to the current directory when below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def record_environment(d, args, env):
    lines = ["date: " + time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host: " + socket.gethostname(),
             "cores (os.cpu_count): %s" % os.cpu_count(), "python: " + sys.version.split()[0]]
    rc, out = run_capture(["nproc"])
    lines.append("nproc: " + out.strip())
    lines.append("\n# environment (selected)")
    for k in sorted(env):
        if k.startswith(ENV_KEYS) or k in ENV_NAMES:
            lines.append("%s=%s" % (k, env[k]))
    lines.append("\n# lscpu")
    rc, out = run_capture(["lscpu"])
    keep = ("Architecture", "Model name", "Socket", "Core", "Thread", "CPU(s)", "NUMA node",
            "L3", "CPU max MHz")
    lines += [l for l in out.splitlines() if l.startswith(keep)] if rc == 0 else ["(lscpu: %s)" % out.strip()]
    if shutil.which("mpirun"):
        rc, out = run_capture(["mpirun", "--version"])
        lines += ["\n# mpirun --version", out.strip()]
    write(os.path.join(d, "env.txt"), "\n".join(lines) + "\n")
    if shutil.which("nvidia-smi"):
        rc1, l1 = run_capture(["nvidia-smi", "-L"])
        rc2, l2 = run_capture(["nvidia-smi", "--query-gpu=index,name,pci.bus_id,driver_version,"
                               "memory.total,power.limit,clocks.max.sm,compute_mode",
                               "--format=csv"])
        gpu = "# nvidia-smi -L\n%s\n# nvidia-smi --query-gpu\n%s\n" % (l1.strip(), l2.strip())
    else:
        gpu = "nvidia-smi: not found (no NVIDIA driver on this host)\n"
    if env.get("CUDA_MPS_PIPE_DIRECTORY"):
        gpu += "CUDA MPS pipe directory: %s\n" % env["CUDA_MPS_PIPE_DIRECTORY"]
    write(os.path.join(d, "gpu.txt"), gpu)
    rc, head = run_capture(["git", "-C", REPO, "rev-parse", "HEAD"])
    if rc == 0:
        rc2, dirty = run_capture(["git", "-C", REPO, "status", "--short", "--untracked-files=no"])
        git = "%s\n%s" % (head.strip(), "local changes:\n" + dirty if dirty.strip() else "clean\n")
    else:
        git = "unknown (no git, or not a git checkout: %s)\n" % head.strip()
    rc, ver = run_capture([args.blast, "--version"])
    write(os.path.join(d, "git.txt"), git + "binary: %s\n%s\n" % (args.blast, ver.strip()))


def plan(args, base):
    """[(ranks, overrides)] for the study."""
    mesh = base.get("mesh", {})
    boxed = "elements" in mesh and "size" in mesh and not mesh.get("file")
    runs = []
    if args.study in ("weak", "strong") and not boxed:
        raise UsageError("%s scaling changes [mesh] elements: the deck must use the box generator "
                         "(its mesh: %s)" % (args.study, mesh.get("file", "?")))
    for n in args.ranks:
        ov = []
        if args.study == "weak":
            dim = int(mesh["dim"])
            edge = [int(x) for x in (args.zones_per_rank or mesh["elements"]).split()]
            size = [float(x) for x in mesh["size"].split()]
            if len(edge) == 1:
                edge *= dim
            if len(edge) != dim or len(size) != dim:
                raise UsageError("--zones-per-rank needs 1 or %d values" % dim)
            f = factor(n, dim)
            ov += ["mesh.elements=" + " ".join(str(e * k) for e, k in zip(edge, f)),
                   "mesh.size=" + " ".join("%.17g" % (s * k) for s, k in zip(size, f))]
        elif args.study == "strong" and args.elements:
            ov += ["mesh.elements=" + args.elements]
        runs.append((n, ov))
    return runs


class SummaryError(Exception):
    pass


def read_summary(path):
    """The run's summary.json as a dict; SummaryError naming the file when it is unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise SummaryError("%s cannot be read as JSON: %s" % (path, e))
    if not isinstance(s, dict):
        raise SummaryError("%s is not a JSON object" % path)
    for k in ("zones", "step_attempts", "steps"):
        if s.get(k) is not None and not isinstance(s.get(k), (int, float)):
            raise SummaryError("%s: %s is not a number" % (path, k))
    return s


def csv_fields(energy):
    return CSV_FIELDS + (ENERGY_FIELDS if energy else []) + ["status", "run_dir"]


def read_earlier_csv(path):
    """(rows, has_energy) of an existing <study>.csv of this tool; UsageError when it is not one
    (other columns), so that no row of it is ever lost."""
    if not os.path.lexists(path):
        return [], False
    if os.path.islink(path) or not os.path.isfile(path):
        raise UsageError("%s exists and is not a regular file: move it away or choose another "
                         "--out" % path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rd = csv.DictReader(f)
            header = rd.fieldnames or []
            rows = list(rd)
    except (OSError, ValueError, csv.Error) as e:
        raise UsageError("%s cannot be read (%s): move it away or choose another --out" % (path, e))
    if header not in (csv_fields(False), csv_fields(True)) or \
            any(None in r or any(v is None for v in r.values()) for r in rows):
        raise UsageError("%s has other columns than this tool writes (%s): its rows would be "
                         "lost; move it away or choose another --out" % (path, ",".join(header[:6])
                                                                         + (",..." if len(header) > 6 else "")))
    return rows, header == csv_fields(True)


def row_of(args, n, d, s):
    attempts = s.get("step_attempts") or s.get("steps") or 0
    steps_s = (s.get("timing") or {}).get("steps_max")
    if steps_s is None:
        steps_s = s.get("wall_seconds")
    r = {"study": args.study, "ranks": n, "threads": s.get("threads", args.threads),
         "zones": s.get("zones"), "h1_dofs": s.get("h1_dofs"), "steps": s.get("steps"),
         "step_attempts": attempts, "steps_seconds": steps_s,
         "seconds_per_step": steps_s / attempts if attempts and steps_s is not None else None,
         "wall_seconds": s.get("wall_seconds"), "setup_seconds": s.get("setup_seconds"),
         "e_norm": s.get("e_norm"), "cg_iterations": s.get("cg_iterations"),
         "backend": s.get("backend"), "run_dir": os.path.relpath(d, args.out), "status": "ok"}
    r["zones_per_rank"] = r["zones"] / n if r["zones"] else None
    e = s.get("energy")
    if isinstance(e, dict):
        r.update({"energy_total_joules": e.get("total_joules"),
                  "energy_gpu_joules": e.get("gpu_joules"),
                  "energy_cpu_package_joules": e.get("cpu_package_joules"),
                  "energy_dram_joules": e.get("dram_joules"),
                  "average_watts": e.get("average_watts"),
                  "joules_per_zone_step": e.get("joules_per_zone_step"),
                  "energy_sources": "; ".join(e.get("sources") or []) or "none"})
    return r


def add_efficiency(rows, earlier=()):
    """Speedup and efficiency of rows against the smallest rank count among rows and the
    earlier rows of the CSV (kept as they are)."""
    ok = [r for r in rows if r["status"] == "ok" and r["seconds_per_step"]]
    if not ok:
        return
    ref = min(ok, key=lambda r: r["ranks"])
    rate_ref = ref["zones"] / ref["seconds_per_step"]
    for e in earlier:
        try:
            n, z, sps = int(e["ranks"]), float(e["zones"]), float(e["seconds_per_step"])
        except (KeyError, ValueError, TypeError):
            continue
        if e.get("status") == "ok" and sps > 0 and n < ref["ranks"]:
            ref, rate_ref = {"ranks": n}, z / sps
    for r in ok:
        speedup = (r["zones"] / r["seconds_per_step"]) / rate_ref
        r["speedup"] = speedup
        r["efficiency"] = speedup * ref["ranks"] / r["ranks"]


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


def write_csv(path, rows, energy, earlier=()):
    """The earlier rows (strings, as read) then rows, through a fresh temporary file."""
    fields = csv_fields(energy)
    tmp = path + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)  # a stale temporary (or a symlink) is never written through
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in earlier:
            w.writerow({k: r.get(k) or "" for k in fields})
        for r in rows:
            w.writerow({k: fmt(r.get(k)) for k in fields})
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("study", choices=["weak", "strong", "run"])
    ap.add_argument("--blast", default=os.environ.get("BLAST"), help="blast_gpu binary ($BLAST)")
    ap.add_argument("--deck", default=DEFAULT_DECK, help="base deck (default %(default)s)")
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--ranks", default="1,2,4,8", help="rank counts, e.g. 1,2,4 (default %(default)s)")
    ap.add_argument("--threads", type=int, default=1, help="OpenMP threads per rank")
    ap.add_argument("--steps", type=int, help="time steps per run (0: as the deck says; default 5, "
                    "run: 0)")
    ap.add_argument("--zones-per-rank", help="weak: zones of one rank's block, 'E' or 'Ex Ey Ez' "
                    "(default: the deck's [mesh] elements)")
    ap.add_argument("--elements", help="strong: global zones 'Ex Ey Ez' (default: the deck's)")
    ap.add_argument("--backend", choices=["auto", "cuda", "cpu"], help="[gpu] backend")
    ap.add_argument("--launcher", default=os.environ.get("BLAST_LAUNCHER", "auto"))
    ap.add_argument("--wrapper", default="", help="command between launcher and blast_gpu")
    ap.add_argument("--ranks-per-node", type=int, default=0,
                    help="custom launcher: most ranks per node, for {ppn} and {nodes}")
    ap.add_argument("--cores", type=int, default=0, help="auto launcher: cores (default: all)")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per run (0: none)")
    ap.add_argument("--overwrite", action="store_true",
                    help="replace the run folders (and their CSV rows) of earlier runs with the "
                    "same study and rank count in --out; other rows of <study>.csv are kept")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("overrides", nargs="*", help="deck overrides section.key=value (after --)")
    extra = []
    if "--" in argv:  # overrides after "--" (also accepted among the options)
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    refuse_unknown_options(ap, argv)
    args = ap.parse_intermixed_args(argv)
    args.overrides += extra
    args._flavor = None
    if args.steps is None:
        args.steps = 0 if args.study == "run" else 5
    try:
        args.ranks = sorted({int(x) for x in args.ranks.replace(",", " ").split()})
        if not args.ranks or min(args.ranks) < 1 or args.threads < 1:
            raise ValueError
    except ValueError:
        raise UsageError("--ranks needs positive integers, --threads >= 1")
    if not args.blast:
        raise UsageError("no blast_gpu binary: pass --blast or set BLAST")
    args.blast = os.path.abspath(args.blast)
    if not os.access(args.blast, os.X_OK):
        raise UsageError("%s is not an executable" % args.blast)
    args.out = os.path.abspath(args.out)
    args.deck = os.path.abspath(args.deck)

    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(args.threads)
    env.setdefault("OMP_PLACES", "cores")
    env.setdefault("OMP_PROC_BIND", "close")
    env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # the order energy.c assumes

    common = list(args.overrides)
    # Scaling runs measure time per step: no end-of-run checkpoint (hundreds of MB at 10^6
    # zones per run) unless the overrides ask for checkpoints.
    if not any(o.startswith("checkpoint.") for o in args.overrides):
        common.append("checkpoint.at_end=false")
    if args.steps > 0:
        common.append("time.max_steps=%d" % (args.steps - 1))  # max_steps = N: N+1 attempts
    if args.backend:
        common.append("gpu.backend=" + args.backend)
    common.append("output.print_every=100000")
    rc, text = run_capture([args.blast, "--print-deck", args.deck] + common, env=env)
    if rc != 0:
        raise UsageError("the deck and overrides are not accepted:\n" + text.strip())
    runs = plan(args, parse_deck(text))

    dirs = [os.path.join(args.out, "%s_np%d" % (args.study, n)) for n, _ in runs]
    csv_path = os.path.join(args.out, args.study + ".csv")
    # Rows of earlier studies in the same --out are kept (a rerun rank count replaces its own
    # row, which needs --overwrite below); a CSV with other columns is refused, never replaced.
    earlier, earlier_energy = read_earlier_csv(csv_path)
    rerun = {os.path.relpath(d, args.out) for d in dirs}
    earlier = [r for r in earlier if r.get("run_dir") not in rerun]
    if not args.dry_run:
        old = [d for d in dirs if os.path.exists(d)]
        if old and not args.overwrite:
            raise UsageError("%s already exists (earlier results): pass --overwrite to replace "
                             "them, or another --out" % old[0])
        for d in old:
            shutil.rmtree(d)
        os.makedirs(args.out, exist_ok=True)

    rows, failed = [], 0
    print("%s study: %s, ranks %s x %d threads -> %s" % (args.study, shown(args.deck),
          ",".join(map(str, args.ranks)), args.threads, shown(csv_path)))
    for (n, mesh_ov), d in zip(runs, dirs):
        ov = common + mesh_ov + ["output.dir=" + d]
        cmd = launcher_cmd(args, n) + shlex.split(args.wrapper) + [args.blast, args.deck] + ov
        if args.dry_run:
            print(shlex.join(cmd))
            continue
        os.makedirs(d)
        rc, deck = run_capture([args.blast, "--print-deck", args.deck] + ov, env=env)
        write(os.path.join(d, "deck.ini"), deck)
        write(os.path.join(d, "command.txt"), "cd %s\nOMP_NUM_THREADS=%d %s\n" % (
            shlex.quote(os.getcwd()), args.threads, shlex.join(cmd)))
        record_environment(d, args, env)
        t0 = time.time()
        with open(os.path.join(d, "stdout.txt"), "w") as fo, \
                open(os.path.join(d, "stderr.txt"), "w") as fe:
            try:
                rc = subprocess.run(cmd, stdout=fo, stderr=fe, env=env,
                                    timeout=args.timeout or None).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            except OSError as e:
                fe.write("cannot start %s: %s\n" % (cmd[0], e))
                rc = "not started"
        summary = os.path.join(d, "summary.json")
        bad_summary = None
        if rc == 0 and os.path.exists(summary):
            try:
                r = row_of(args, n, d, read_summary(summary))
                if not r["zones"] or r["seconds_per_step"] is None:
                    bad_summary = "%s has no zones or step timing" % summary
            except SummaryError as e:
                bad_summary = str(e)
        if rc == 0 and os.path.exists(summary) and not bad_summary:
            print("  %4d ranks: %9d zones  %10.4g s/step  %6.1f s  %s" % (
                n, r["zones"], r["seconds_per_step"], time.time() - t0, shown(d)))
        else:
            failed += 1
            why = "exit %s" % rc if rc != 0 else (bad_summary or "no summary.json")
            r = {"study": args.study, "ranks": n, "threads": args.threads,
                 "status": "failed (%s)" % ("bad summary.json" if bad_summary else rc),
                 "run_dir": os.path.relpath(d, args.out)}
            with open(os.path.join(d, "stderr.txt"), errors="replace") as f:
                tail = f.read()[-800:]
            print("  %4d ranks: FAILED (%s), see %s\n%s" % (n, why, d, tail), file=sys.stderr)
        rows.append(r)
        # After every run: a study cut short (time limit) keeps the rows it has.
        add_efficiency(rows, earlier)
        write_csv(csv_path, rows, earlier_energy or any("energy_sources" in r for r in rows),
                  earlier)
        sys.stdout.flush()
    if args.dry_run:
        return 0
    print("%-6s %6s %10s %12s %9s %10s" % ("ranks", "thr", "zones", "s/step", "speedup", "efficiency"))
    for r in rows:
        if r["status"] == "ok":
            print("%-6d %6d %10d %12.5g %9.3f %9.1f%%" % (r["ranks"], r["threads"], r["zones"],
                  r["seconds_per_step"], r["speedup"], 100 * r["efficiency"]))
    print("wrote %s" % shown(csv_path))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print("scaling.py: error: %s" % e, file=sys.stderr)
        sys.exit(2)
