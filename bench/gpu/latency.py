#!/usr/bin/env python3
"""The latency, ranks-sharing-a-GPU, multi-rank setup and 2-GPU scaling rows of blast_gpu in
one run, each with its baseline binary (standard library only).

    source .gpu-bundle/env.sh     # GPU node without packages: the bundle's mpirun and libraries
    python3 bench/gpu/latency.py --blast build/app/blast_gpu [--baseline OLD] [--rows a,b,c,d,e]
        [--reps 3] [--scaling-reps 1] [--steps 20] [--mps] [--mpirun auto|none|TEMPLATE]
        [--backend auto|cuda|cpu] [--extra "key=value ..."] [--env KEY=VALUE ...]
        [--out DIR] [--timeout S] [--quick]

Every run is 3D Sedov Q2-Q1 (Q3-Q2 where said) on the generated box of
bench/gpu/sedov3d_box.ini with problem.blast_energy=2.0 (the deck's RK4, cfl 0.5),
time.max_steps=20 (--steps: 21 step attempts), no checkpoint; every number is read from the
run's summary.json. The rows (--rows picks some):

  a  262,144 zones (64^3), 1 rank x 2 threads, and 8 ranks x 2 threads sharing the GPU,
     under MPS with --mps: time steps (timing.steps_max, the slowest rank) of each and
     8 ranks / 1 rank
  b  4,096 zones (16^3) and 32,768 zones (32^3), 1 rank x 2 threads: time steps and ms per
     step attempt
  c  2,097,152 zones (128^3), 1 rank x 16 threads: setup seconds and its phases
     (setup_phases_max: the mesh, topology, backend, ...); these runs stop after 2 step
     attempts (time.max_steps=1)
  d  the same mesh, 2 ranks x 8 threads: setup and phases, and 2 ranks / 1 rank (c). A rank
     uses GPU (node-local rank mod visible GPUs), so the 2 ranks run on 2 GPUs where 2 are
     visible and share the GPU otherwise (the GPUs column says which)
  e  2 GPUs, 1 -> 2 ranks through tools/scaling.py: weak at 1,048,576 Q2 zones per GPU
     (128 x 128 x 64 zones of a 1 x 1 x 0.5 box per rank), weak at 262,144 Q3 zones per GPU
     (64^3), strong at 2,097,152 Q2 zones (128^3); the efficiency is scaling.py's (zone-steps
     per second per rank against 1 rank, time per step = steps_max / attempts)

Repetitions: --reps of rows a-d, --scaling-reps of row e; with --baseline OLD every
repetition runs OLD then --blast on each case, interleaved; the tables show medians (the
range over the repetitions in brackets), new/old, and whether |e| (summary e_norm) has the
same bits for OLD and --blast, and for 1 and 8 ranks (a), 1 and 2 ranks (c, d; e strong).

Threads per rank are capped at the cores of the machine. --mpirun: "auto" (default)
builds tools/scaling.py's Open MPI line (mpirun -n N, each rank's threads bound to cores of
its own when they fit, --oversubscribe --bind-to none otherwise, OMP_* exported); any other
string is a template as tools/scaling.py --launcher takes it ({n} ranks and {threads}
replaced, "-n N" appended without {n}), e.g. --mpirun "mpirun -n {n} --bind-to none";
"none" starts blast_gpu directly (one rank: the multi-rank runs are skipped). OMPI_ALLOW_RUN_
AS_ROOT(_CONFIRM)=1 and CUDA_DEVICE_ORDER=PCI_BUS_ID are set for every run. --mps starts an
MPS control daemon (nvidia-cuda-mps-control -d, pipes in a folder of its own) around each
multi-rank run of row a and stops it after the run (echo quit | nvidia-cuda-mps-control);
the 1-rank runs never see it.

A row that cannot run here prints "skipped: <reason>" (no GPU visible without --backend cpu,
fewer than 2 GPUs for row e, --mpirun none for multi-rank runs) and the others run. --quick
shrinks everything for a smoke run (a: 16^3; b: 8^3, 16^3; c, d: 32^3; e: 32 x 32 x 16 and
16^3 per rank, 32^3; 3 steps; 1 repetition unless --reps says). --out DIR keeps every run's
folder (DIR/<case>_<new|old>_rep<r>/, DIR/e_<study>_<new|old>_rep<r>/) and writes
DIR/latency.csv; without it the runs go to a temporary folder, removed at the end.

A case that fails once is not run again (its command and last lines are printed). Exit
status 0 when every run that was not skipped succeeded and every |e| pair agrees, 1
otherwise, 2 for bad usage.
"""
import argparse
import csv
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECK = os.path.join(ROOT, "bench", "gpu", "sedov3d_box.ini")
SCALING = os.path.join(ROOT, "tools", "scaling.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import scaling  # noqa: E402  (the launcher line and the summary reader)
from cli_options import refuse_unknown_options  # noqa: E402

MPS_CTL = "nvidia-cuda-mps-control"


class Case:
    """One blast_gpu run shape of a row: an n^3 (or nx ny nz) box, order k, ranks x threads."""

    def __init__(self, row, key, label, elements, k, ranks, threads, max_steps, mps=False):
        self.row, self.key, self.label = row, key, label
        self.elements, self.k, self.ranks, self.threads = elements, k, ranks, threads
        self.max_steps, self.mps = max_steps, mps
        self.zones = elements[0] * elements[1] * elements[2]
        self.skip = None  # reason, or None when the case runs


def cases_of(a, cores, quick):
    """The cases of rows a-d, in the order they run."""
    st, s1 = a.steps, 1
    n_a, n_b, n_c = (16, (8, 16), 32) if quick else (64, (16, 32), 128)
    t = lambda want: max(1, min(want, cores))  # noqa: E731
    return [
        Case("a", "a1", "%s zones, 1 rank x %d threads" % (f"{n_a ** 3:,}", t(2)), (n_a,) * 3, 2, 1, t(2), st),
        Case("a", "a8", "same, 8 ranks x %d threads%s" % (t(2), " under MPS" if a.mps else " (no MPS)"),
             (n_a,) * 3, 2, 8, t(2), st, mps=a.mps),
        Case("b", "b%d" % n_b[0], "%s zones, 1 rank x %d threads" % (f"{n_b[0] ** 3:,}", t(2)), (n_b[0],) * 3, 2,
             1, t(2), st),
        Case("b", "b%d" % n_b[1], "%s zones, 1 rank x %d threads" % (f"{n_b[1] ** 3:,}", t(2)), (n_b[1],) * 3, 2,
             1, t(2), st),
        Case("c", "c", "%s zones, 1 rank x %d threads: setup" % (f"{n_c ** 3:,}", t(16)), (n_c,) * 3, 2, 1,
             t(16), s1),
        Case("d", "d", "same mesh, 2 ranks x %d threads: setup" % t(8), (n_c,) * 3, 2, 2, t(8), s1),
    ]


def studies_of(quick):
    """Row e: (name, study, order, scaling.py mesh options, the box of one rank or None for
    the deck's). scaling.py scales the deck's [mesh] size with the rank count (a size among
    the overrides would be set twice), so a box other than the deck's goes into a deck of
    its own."""
    if quick:
        return [("weak Q2", "weak", 2, ["--zones-per-rank", "32 32 16"], "1.0 1.0 0.5"),
                ("weak Q3", "weak", 3, ["--zones-per-rank", "16 16 16"], None),
                ("strong Q2", "strong", 2, ["--elements", "32 32 32"], None)]
    return [("weak Q2, 1,048,576 zones per GPU", "weak", 2, ["--zones-per-rank", "128 128 64"], "1.0 1.0 0.5"),
            ("weak Q3, 262,144 zones per GPU", "weak", 3, ["--zones-per-rank", "64 64 64"], None),
            ("strong Q2, 2,097,152 zones", "strong", 2, ["--elements", "128 128 128"], None)]


def deck_with_size(size, path):
    """DECK with its [mesh] size replaced, written to path; path."""
    with open(DECK) as f:
        text = f.read()
    new = re.sub(r"^(\s*size\s*=\s*)[^;\n]*", lambda m: m.group(1) + size, text, count=1, flags=re.M)
    if new == text:
        raise scaling.UsageError("%s has no [mesh] size line to change" % DECK)
    with open(path, "w") as f:
        f.write(new)
    return path


def run_capture(cmd, env=None, timeout=60, inp=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, input=inp)
        return p.returncode, p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def visible_gpus(env):
    """[(index, name)] of the GPUs this run's CUDA sees (nvidia-smi, filtered by
    CUDA_VISIBLE_DEVICES: indices or UUID prefixes, up to the first entry that names none)
    and a note; [] without nvidia-smi."""
    if not shutil.which("nvidia-smi", path=env.get("PATH")):
        return [], "nvidia-smi not found"
    rc, out = run_capture(["nvidia-smi", "--query-gpu=index,name,uuid,driver_version",
                           "--format=csv,noheader"], env=env)
    if rc != 0:
        return [], "nvidia-smi failed: " + out.strip().splitlines()[-1:][0] if out.strip() else "nvidia-smi failed"
    gpus = []
    for line in out.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) == 4 and f[0].isdigit():
            gpus.append((int(f[0]), f[1], f[2], f[3]))
    driver = gpus[0][3] if gpus else "?"
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None:
        chosen = []
        for tok in (x.strip() for x in cvd.split(",")):
            hit = [g for g in gpus if (tok.isdigit() and g[0] == int(tok)) or
                   (tok and not tok.isdigit() and g[2].startswith(tok))]
            if not hit:
                break
            chosen.append(hit[0])
        gpus = chosen
    return [(g[0], g[1]) for g in gpus], "driver " + driver


class Mps:
    """An MPS control daemon with its pipes in a folder of its own, for the runs given env()."""

    def __init__(self):
        self.dir, self.pid = None, None

    def start(self, env):
        """None when up, else the reason."""
        if not shutil.which(MPS_CTL, path=env.get("PATH")):
            return "%s is not on PATH" % MPS_CTL
        self.dir = tempfile.mkdtemp(prefix="latency_mps_")
        for sub in ("pipe", "log"):
            os.mkdir(os.path.join(self.dir, sub))
        rc, out = run_capture([MPS_CTL, "-d"], env=self.env(env), timeout=30)
        if rc != 0:
            self.stop(env)
            return "%s -d failed (exit %s): %s" % (MPS_CTL, rc, out.strip()[-200:])
        for _ in range(300):
            if os.path.exists(os.path.join(self.dir, "pipe", "control")):
                try:
                    with open(os.path.join(self.dir, "pipe", "nvidia-cuda-mps-control.pid")) as f:
                        self.pid = int(f.read().strip())
                except (OSError, ValueError):
                    self.pid = None
                return None
            time.sleep(0.1)
        self.stop(env)
        return "the MPS daemon did not come up in 30 s"

    def env(self, env):
        return dict(env, CUDA_MPS_PIPE_DIRECTORY=os.path.join(self.dir, "pipe"),
                    CUDA_MPS_LOG_DIRECTORY=os.path.join(self.dir, "log"))

    def stop(self, env):
        if not self.dir:
            return
        if os.path.exists(os.path.join(self.dir, "pipe", "control")):
            rc, out = run_capture([MPS_CTL], env=self.env(env), timeout=30, inp="quit\n")
            if rc != 0:
                print("  warning: 'echo quit | %s' failed (exit %s): %s" % (MPS_CTL, rc, out.strip()[-200:]))
            for _ in range(100):  # the daemon's own exit
                if not self.pid or not os.path.exists("/proc/%d" % self.pid):
                    break
                time.sleep(0.1)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir, self.pid = None, None


def launcher(a, ranks, threads):
    """The launcher words for ranks x threads ([] for --mpirun none), or raises
    scaling.UsageError."""
    if a.mpirun == "none":
        return []
    ns = types.SimpleNamespace(launcher=a.mpirun, threads=threads, ranks_per_node=0, cores=0, _flavor=a._flavor)
    words = scaling.launcher_cmd(ns, ranks)
    a._flavor = ns._flavor
    return words


def run_case(a, c, binary, d, env, mps):
    """Run case c with binary in folder d; a dict of the summary's numbers, or None (the
    failure printed)."""
    cmd = launcher(a, c.ranks, c.threads) + [
        binary, DECK, "problem.blast_energy=2.0", "mesh.elements=%d %d %d" % c.elements,
        "fem.order_kinematic=%d" % c.k, "fem.order_thermo=%d" % (c.k - 1), "time.max_steps=%d" % c.max_steps,
        "output.print_every=100000", "output.dir=" + d, "output.overwrite=true", "checkpoint.at_end=false"]
    if a.backend:
        cmd.append("gpu.backend=" + a.backend)
    cmd += shlex.split(a.extra)
    renv = dict(env, OMP_NUM_THREADS=str(c.threads))
    why = None
    if c.mps:
        why = mps.start(renv)
        if why:
            print("  %s: MPS not started (%s): this run is skipped" % (c.key, why))
            return {"skip": "--mps: " + why}
        renv = mps.env(renv)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=renv,
                           timeout=a.timeout)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        o = e.stdout or ""
        rc, out = "timeout after %d s" % a.timeout, o.decode(errors="replace") if isinstance(o, bytes) else o
    except OSError as e:
        rc, out = "not started", str(e)
    finally:
        if c.mps:
            mps.stop(renv)
    wall = time.time() - t0
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "command.txt"), "w") as f:
        f.write("OMP_NUM_THREADS=%d %s\n" % (c.threads, shlex.join(cmd)))
    with open(os.path.join(d, "output.txt"), "w") as f:
        f.write(out)
    summary = os.path.join(d, "summary.json")
    s, why = None, None
    if rc == 0:
        try:
            s = scaling.read_summary(summary)
            t = s.get("timing") or {}
            if not isinstance(t.get("steps_max"), (int, float)) or not s.get("step_attempts"):
                why = "%s has no timing.steps_max or step_attempts" % summary
        except scaling.SummaryError as e:
            why = str(e)
    else:
        why = "exit %s" % rc
    if why:
        print("FAIL %s (%s): %s" % (c.key, why, shlex.join(cmd)))
        for line in out.strip().splitlines()[-15:]:
            print("    " + line)
        sys.stdout.flush()
        return None
    phases = s.get("setup_phases_max") if isinstance(s.get("setup_phases_max"), dict) else {}
    return {"steps_s": float(s["timing"]["steps_max"]), "attempts": int(s["step_attempts"]),
            "setup_s": s.get("setup_seconds"), "phases": {k: v for k, v in phases.items()
                                                           if isinstance(v, (int, float)) and v >= 0},
            "e": s.get("e_norm"), "backend": s.get("backend"), "ranks": s.get("ranks"),
            "threads": s.get("threads"), "zones": s.get("zones"), "wall": wall}


def run_study(a, name, study, k, mesh_opts, size, binary, d, env):
    """Row e: one tools/scaling.py study (1 and 2 ranks); its CSV rows by ranks, or None."""
    deck = DECK
    if size:
        os.makedirs(d, exist_ok=True)
        deck = deck_with_size(size, os.path.join(d, "deck_box.ini"))
    cmd = [sys.executable, SCALING, study, "--blast", binary, "--deck", deck, "--out", d, "--ranks", "1,2",
           "--threads", str(a.scaling_threads), "--steps", str(a.steps + 1), "--overwrite"] + mesh_opts
    if a.backend:
        cmd += ["--backend", a.backend]
    if a.mpirun != "auto":
        cmd += ["--launcher", a.mpirun]
    if a.timeout:
        cmd += ["--timeout", str(a.timeout)]
    cmd += ["--", "problem.blast_energy=2.0", "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1)]
    cmd += shlex.split(a.extra)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        rc, out = p.returncode, p.stdout
    except OSError as e:
        rc, out = "not started", str(e)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "latency_scaling.txt"), "w") as f:
        f.write(shlex.join(cmd) + "\n" + out)
    rows = {}
    path = os.path.join(d, study + ".csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                try:
                    if r["status"] == "ok":
                        rows[int(r["ranks"])] = {"s_step": float(r["seconds_per_step"]),
                                                 "eff": float(r["efficiency"]), "e": float(r["e_norm"]),
                                                 "zones": int(float(r["zones"]))}
                except (KeyError, ValueError):
                    pass
    if rc != 0 or 1 not in rows or 2 not in rows:
        print("FAIL e %s (exit %s): %s" % (name, rc, shlex.join(cmd)))
        for line in out.strip().splitlines()[-15:]:
            print("    " + line)
        sys.stdout.flush()
        return None
    return rows


def med(vals):
    return statistics.median(vals) if vals else None


def rng(vals, spec):
    if len(vals) < 2:
        return ""
    return " (%s-%s)" % (spec % min(vals), spec % max(vals))


def fmt(x, spec="%.4g"):
    return "-" if x is None else spec % x


def phase_text(phases, top=5):
    """"mesh 1.2, topology 7.65, backend 44.6, ..." : topology and backend always, then the
    largest others."""
    if not phases:
        return ""
    named = [p for p in ("topology", "backend") if p in phases]
    rest = sorted((p for p in phases if p not in named), key=lambda p: -phases[p])[:max(0, top - len(named))]
    return ", ".join("%s %.3g s" % (p, phases[p]) for p in named + rest)


def median_phases(runs):
    keys = sorted({k for r in runs for k in r["phases"]})
    return {k: statistics.median([r["phases"][k] for r in runs if k in r["phases"]]) for k in keys}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--blast", required=True, help="blast_gpu binary")
    ap.add_argument("--baseline", help="another blast_gpu binary (e.g. the build before a change), run interleaved")
    ap.add_argument("--rows", default="a,b,c,d,e", help="rows to run, comma separated (default %(default)s)")
    ap.add_argument("--reps", type=int, help="repetitions of rows a-d (default 3; --quick 1)")
    ap.add_argument("--scaling-reps", type=int, default=1, help="repetitions of row e (default 1)")
    ap.add_argument("--scaling-threads", type=int, default=8, help="threads per rank in row e (default 8)")
    ap.add_argument("--steps", type=int, help="time.max_steps of rows a, b, e (default 20; --quick 3)")
    ap.add_argument("--mps", action="store_true", help="run row a's 8 ranks under an MPS daemon of their own")
    ap.add_argument("--mpirun", default="auto", help='launcher: auto, none, or a template ("mpirun -n {n} ...")')
    ap.add_argument("--backend", choices=("auto", "cuda", "cpu"), help="[gpu] backend (default: the deck's)")
    ap.add_argument("--extra", default="", help="more deck overrides for every run (one shell-quoted string)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="environment of every run")
    ap.add_argument("--out", help="keep the run folders here and write latency.csv")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per run (default %(default)s)")
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 steps, 1 repetition: a smoke run")
    refuse_unknown_options(ap, argv)
    a = ap.parse_args(argv)
    rows = [r.strip() for r in a.rows.split(",") if r.strip()]
    bad = [r for r in rows if r not in "abcde" or len(r) != 1]
    if bad or not rows:
        ap.error("--rows takes letters a-e, comma separated (got '%s')" % a.rows)
    if a.reps is None:
        a.reps = 1 if a.quick else 3
    if a.steps is None:
        a.steps = 3 if a.quick else 20
    if a.reps < 1 or a.scaling_reps < 1 or a.steps < 0 or a.scaling_threads < 1:
        ap.error("--reps, --scaling-reps, --scaling-threads must be >= 1, --steps >= 0")
    bins = [("new", os.path.abspath(a.blast))]
    if a.baseline:
        bins.insert(0, ("old", os.path.abspath(a.baseline)))
    for _, b in bins:
        if not os.access(b, os.X_OK):
            ap.error("%s is not an executable" % b)
    for kv in a.env:
        if "=" not in kv:
            ap.error("--env takes KEY=VALUE (got '%s')" % kv)
    a._flavor = None
    cores = os.cpu_count() or 1
    a.scaling_threads = min(a.scaling_threads, cores)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # CUDA numbers the GPUs as nvidia-smi does
    env.setdefault("OMP_PLACES", "cores")
    env.setdefault("OMP_PROC_BIND", "close")
    env.update(kv.split("=", 1) for kv in a.env)

    gpus, note = visible_gpus(env)
    cpu = a.backend == "cpu"
    if cpu:
        card = "CPU backend (gpu.backend=cpu), %d cores" % cores
    elif gpus:
        names = sorted({g[1] for g in gpus})
        card = "%d x %s (%s), %d cores" % (len(gpus), " + ".join(names), note, cores)
    else:
        card = "no GPU visible (%s)" % note
    cases = [c for c in cases_of(a, cores, a.quick) if c.row in rows]
    for c in cases:
        if not cpu and not gpus:
            c.skip = "no GPU visible (%s); --backend cpu runs the row on the CPU" % note
        elif c.ranks > 1 and a.mpirun == "none":
            c.skip = "--mpirun none starts one rank only"
    studies = studies_of(a.quick) if "e" in rows else []
    e_skip = None
    if studies:
        if not cpu and len(gpus) < 2:
            e_skip = "%d GPU%s visible, the scaling rows need 2" % (len(gpus), "" if len(gpus) == 1 else "s")
        elif a.mpirun == "none":
            e_skip = "--mpirun none starts one rank only"
    print("blast_gpu %s%s | %s | rows %s | %d steps | %d reps (e: %d) | MPS %s | launcher %s"
          % (a.blast, " | baseline " + a.baseline if a.baseline else "", card, ",".join(rows), a.steps, a.reps,
             a.scaling_reps, "on" if a.mps else "off", a.mpirun))
    sys.stdout.flush()
    out = os.path.abspath(a.out) if a.out else tempfile.mkdtemp(prefix="latency_")
    os.makedirs(out, exist_ok=True)
    mps = Mps()
    res = {(c.key, w): [] for c in cases for w, _ in bins}
    mps_skip, failed = {}, set()
    sres = {(s[0], w): [] for s in studies for w, _ in bins}
    ok = True

    def stop(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        for rep in range(a.reps):
            for c in cases:
                if c.skip:
                    continue
                for w, b in bins:
                    if (c.key, w) in failed:  # once failed, not again
                        continue
                    d = os.path.join(out, "%s_%s_rep%d" % (c.key, w, rep + 1))
                    r = run_case(a, c, b, d, env, mps)
                    if r is None:
                        ok = False
                        failed.add((c.key, w))
                        continue
                    if "skip" in r:
                        mps_skip[c.key] = r["skip"]
                        continue
                    res[(c.key, w)].append(r)
                    print("  %-4s rep %d %s: time steps %9.4f s (%d attempts)  setup %8.3f s  |e| %.17g  %s"
                          % (c.key, rep + 1, w, r["steps_s"], r["attempts"], r["setup_s"] or float("nan"),
                             r["e"] if r["e"] is not None else float("nan"), r["backend"]))
                    sys.stdout.flush()
        for c in cases:
            if c.key in mps_skip and not any(res[(c.key, w)] for w, _ in bins):
                c.skip = mps_skip[c.key]
        if not e_skip:
            for rep in range(a.scaling_reps):
                for name, study, k, mopts, size in studies:
                    for w, b in bins:
                        if (name, w) in failed:
                            continue
                        d = os.path.join(out, "e_%s%d_%s_rep%d" % (study, k, w, rep + 1))
                        r = run_study(a, name, study, k, mopts, size, b, d, env)
                        if r is None:
                            ok = False
                            failed.add((name, w))
                            continue
                        sres[(name, w)].append(r)
                        print("  e %s rep %d %s: %.4g -> %.4g s/step, efficiency %.1f %%"
                              % (name, rep + 1, w, r[1]["s_step"], r[2]["s_step"], 100 * r[2]["eff"]))
                        sys.stdout.flush()
    except KeyboardInterrupt as e:
        print("interrupted (%s): the table has the runs done so far" % (e or "SIGINT"))
        ok = False
    finally:
        mps.stop(env)
    table, ok_e = build_table(a, cases, res, studies, sres, e_skip, gpus, cpu, bins)
    print_table(a, card, table)
    if a.out:
        path = os.path.join(out, "latency.csv")
        with open(path, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=["row", "case", "quantity", "blast", "blast_range", "baseline",
                                               "baseline_range", "new_over_old", "same_e", "gpus", "card",
                                               "detail"], extrasaction="ignore")
            wr.writeheader()
            for t in table:
                wr.writerow(dict(t, card=card))
        print("CSV written to", path)
    else:
        shutil.rmtree(out, ignore_errors=True)
    ok = ok and ok_e
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def same_bits(*groups):
    """True when every run of the groups has one e_norm, None when there is nothing to compare."""
    es = [r["e"] for g in groups for r in g]
    if len(es) < 2:
        return None
    return len(set(es)) == 1


def build_table(a, cases, res, studies, sres, e_skip, gpus, cpu, bins):
    """The table's lines (dicts) and whether every |e| pair agrees."""
    table, ok = [], True
    base = a.baseline is not None
    by = {c.key: c for c in cases}

    def gpus_of(ranks):
        if cpu:
            return "cpu"
        n = min(ranks, len(gpus))
        return "%d%s" % (n, " (shared by %d ranks)" % ranks if ranks > n else "")

    def line(row, case, qty, new, old, spec, same=None, gpu="", detail="", ranges=("", "")):
        t = {"row": row, "case": case, "quantity": qty, "blast": new, "baseline": old, "same_e": same,
             "gpus": gpu, "detail": detail, "spec": spec, "blast_range": ranges[0], "baseline_range": ranges[1]}
        t["new_over_old"] = new / old if new is not None and old else None
        table.append(t)

    def check(*groups):
        nonlocal ok
        s = same_bits(*groups)
        if s is False:
            ok = False
        return s

    for c in cases:
        if c.skip:
            table.append({"row": c.row, "case": c.label, "quantity": "skipped: " + c.skip})
            continue
        new, old = res[(c.key, "new")], res[(c.key, "old")] if base else []
        same = check(new, old)
        if c.row in "ab":
            vn, vo = [r["steps_s"] for r in new], [r["steps_s"] for r in old]
            att = new[0]["attempts"] if new else (old[0]["attempts"] if old else 0)
            line(c.row, c.label, "time steps s" + (" (%d attempts)" % att if att else ""), med(vn), med(vo), "%.4g", same,
                 gpus_of(c.ranks), "" if new or old else "no run succeeded (FAIL above)",
                 (rng(vn, "%.4g"), rng(vo, "%.4g")))
            if c.row == "b" and att:
                line(c.row, c.label, "ms per step attempt", med([1e3 * v / att for v in vn]) if vn else None,
                     med([1e3 * v / att for v in vo]) if vo else None, "%.3g", None, gpus_of(c.ranks))
        else:
            vn, vo = [r["setup_s"] for r in new], [r["setup_s"] for r in old]
            pn, po = median_phases(new), median_phases(old)
            detail = phase_text(pn) + ("; baseline: " + phase_text(po) if po else "") if new or old else \
                "no run succeeded (FAIL above)"
            line(c.row, c.label, "setup s", med(vn), med(vo), "%.3g", same, gpus_of(c.ranks), detail,
                 (rng(vn, "%.3g"), rng(vo, "%.3g")))
            for ph in ("topology", "backend"):
                if ph in pn or ph in po:
                    line(c.row, c.label, "  of which %s s" % ph, pn.get(ph), po.get(ph), "%.3g")
    for one, many, qty, key in (("a1", "a8", "8 ranks / 1 rank, time steps", "steps_s"),
                                ("c", "d", "2 ranks (d) / 1 rank (c), setup", "setup_s")):
        if one in by and many in by and not by[one].skip and not by[many].skip:
            def ratio(w):
                x, y = res[(one, w)], res[(many, w)]
                return med([r[key] for r in y]) / med([r[key] for r in x]) if x and y else None
            same = check(res[(one, "new")], res[(many, "new")])
            same_old = check(res[(one, "old")], res[(many, "old")]) if base else None
            if same is None or same_old is False:
                same = same_old
            line(by[many].row, "%d ranks against 1, the same mesh" % by[many].ranks, qty, ratio("new"),
                 ratio("old") if base else None, "%.3f", same)
    if studies and e_skip:
        table.append({"row": "e", "case": "2-GPU weak and strong scaling", "quantity": "skipped: " + e_skip})
    elif studies:
        for name, study, k, _, _ in studies:
            new, old = sres[(name, "new")], sres[(name, "old")] if base else []
            same = None
            if study == "strong":  # the same mesh on 1 and 2 ranks: the same bits
                same = check([{"e": r[n]["e"]} for r in new for n in (1, 2)],
                             [{"e": r[n]["e"]} for r in old for n in (1, 2)])
            else:  # 1 rank and 2 ranks run different meshes: new against old per rank count
                same = check([{"e": r[1]["e"]} for r in new], [{"e": r[1]["e"]} for r in old])
                same2 = check([{"e": r[2]["e"]} for r in new], [{"e": r[2]["e"]} for r in old])
                same = None if same is None and same2 is None else (same is not False and same2 is not False)
            en, eo = [100 * r[2]["eff"] for r in new], [100 * r[2]["eff"] for r in old]

            def steps(rs):
                return "%.4g -> %.4g s/step" % (med([r[1]["s_step"] for r in rs]), med([r[2]["s_step"] for r in rs])) \
                    if rs else ""
            detail = steps(new) + ("; baseline " + steps(old) if old else "") if new or old else \
                "no run succeeded (FAIL above)"
            line("e", "2 GPUs, " + name, "efficiency %", med(en), med(eo), "%.1f", same, gpus_of(2), detail,
                 (rng(en, "%.1f"), rng(eo, "%.1f")))
    table.sort(key=lambda t: t["row"])  # stable: the ratios after their row's cases
    return table, ok


def print_table(a, card, table):
    print("\n3D Sedov on the box (bench/gpu/sedov3d_box.ini, problem.blast_energy=2.0), %s; medians of the "
          "repetitions (range in brackets)\n" % card)
    base = a.baseline is not None
    head = "| row | case | quantity | blast_gpu |" + (" baseline | new/old |" if base else "") + \
        " same \\|e\\| | GPUs | detail |"
    ncol = 7 + (2 if base else 0)
    print(head)
    print("|" + "---|" * ncol)
    for t in table:
        if "spec" not in t:  # skipped
            print("| %s | %s | %s |%s" % (t["row"], t["case"], t["quantity"], " |" * (ncol - 3)))
            continue
        same = {None: "", True: "yes", False: "DIFFERS"}[t["same_e"]]
        cells = [t["row"], t["case"], t["quantity"], fmt(t["blast"], t["spec"]) + t["blast_range"]]
        if base:
            cells += [fmt(t["baseline"], t["spec"]) + t["baseline_range"], fmt(t["new_over_old"], "%.3f")]
        cells += [same, t["gpus"], t["detail"]]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except scaling.UsageError as e:
        print("latency.py: error: %s" % e, file=sys.stderr)
        sys.exit(2)
