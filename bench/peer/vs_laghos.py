#!/usr/bin/env python3
"""blast_gpu against the peer code Laghos on the same 3D Sedov cases (standard library only).

    python3 bench/peer/vs_laghos.py --blast build/app/blast_gpu --laghos ./laghos --device gpu \\
        [--cases 2:4,2:5,2:6,3:5,4:4] [--steps 20] [--reps 3] [--autotune cached] \\
        [--extra-blast "gpu.spmv=cusparse"] [--extra-laghos ARGS] [--mpirun "mpirun -n 1"] \\
        [--env KEY=VALUE ...] [--out table.csv]

A case K:R is Sedov Q_K-Q_{K-1} on Laghos's default 3D mesh (2x2x2 hexes of the unit cube)
refined R times, i.e. (2*2^R)^3 zones, which blast_gpu generates directly as a box
(bench/gpu/sedov3d_box.ini with problem.blast_energy=2.0 is Laghos's blast energy 0.25 in
the octant; see /work/shared/peers/README.md). The two runs of a pair are:

    laghos -p 1 -dim 3 -rs R -ok K -ot K-1 -tf 0.6 -pa -d cuda|cpu -ms N -f
    blast_gpu sedov3d_box.ini problem.blast_energy=2.0 "mesh.elements=n n n" time.max_steps=N ...

Both programs end a run with step attempt N+1 (Laghos: the attempt that finds N done is
the last; blast_gpu's time.max_steps=N likewise), so the same N pairs them; the script
checks that both report the same last step number. Each pair runs --reps times
(alternating), and the table shows the median "Major kernels total rate" FOM (best of
the repetitions in brackets), their ratio blast_gpu/Laghos, blast_gpu's whole time-step
time against half of Laghos's major-kernels time (medians), |e| after the last step from
both with the relative difference (must be <= --tol), and on --device gpu the peak GPU
memory of each process (nvidia-smi, polled every 0.2 s) per zone. --device cpu runs both
on the CPU with OMP_NUM_THREADS=1 unless --env sets it.

GPU energy (--device gpu): NVML through ctypes (libnvidia-ml.so.1) reads the board's energy
counter (nvmlDeviceGetTotalEnergyConsumption; Volta and newer) just before each run starts
and just after its process ends, or, where the counter is not supported, integrates
nvmlDeviceGetPowerUsage sampled every 50 ms with the trapezoid rule; summed over the GPUs
the runs may use (CUDA_VISIBLE_DEVICES, indices or UUIDs, else all: on a node of several
GPUs pass --env CUDA_VISIBLE_DEVICES=0 so that the idle ones do not count;
CUDA_DEVICE_ORDER=PCI_BUS_ID is set so that CUDA numbers them as NVML does). It is the
energy of the whole process (start-up, setup, the N+1 steps, the end). A table after the
others gives each program's joules, joules per zone-step (joules / (zones x the last step number
both report)), their ratio blast_gpu/Laghos, the average power of the runs, blast_gpu's own
GPU energy of its time steps alone per zone-step (summary.json energy.gpu_joules), and the
GPUs' idle power (1 s measured before the first run) so that a reader can judge; the CSV
has the same columns. With --device cpu, without NVML, or after an NVML call fails (the
header says which and why, in one line) the energy columns say n/a and nothing else
changes.

With --baseline OLD, a second blast_gpu binary (e.g. the build before a change) runs the
same commands interleaved with --blast (Laghos, OLD, --blast in every repetition), and a
second table gives both FOMs and new/old; OLD's |e| must be the same bits as --blast's.

Exit status 1 if a run fails (its command and last output lines are printed, and the
table says 'fails'; with --peer-may-fail a failing Laghos run, e.g. Q4-Q3 on the GPU with
"too many resources requested for launch", does not count), if |e| disagrees beyond --tol,
or if the two programs report different last step numbers.
"""
import argparse, csv, ctypes, json, os, re, shlex, shutil, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECK = os.path.join(ROOT, "bench", "gpu", "sedov3d_box.ini")
FLOAT = r"([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"

def parse_laghos(text):
    """FOM, major-kernels seconds, last step number and its |e| from Laghos's output."""
    fom = re.search(r"^Major kernels total rate \(megadofs x time steps / second\): " + FLOAT, text, re.M)
    tmk = re.search(r"^Major kernels total time \(seconds\): " + FLOAT, text, re.M)
    steps = re.findall(r"^step\s+(\d+),\s*t = .*?\|e\| = " + FLOAT, text, re.M)
    if not (fom and tmk and steps):
        return None
    return {"fom": float(fom.group(1)), "time": float(tmk.group(1)),
            "step": int(steps[-1][0]), "e": float(steps[-1][1])}

def parse_blast(text):
    """FOM, time-step seconds (slowest rank), step count and final |e| from blast_gpu's summary."""
    fom = re.search(r"^\s*Major kernels total rate \(megadofs x time steps / second\):\s+" + FLOAT, text, re.M)
    tst = re.search(r"^\s*time steps \(all of the above \+ RK\)\s+" + FLOAT, text, re.M)
    steps = re.search(r"^\s*steps (\d+) \(attempts (\d+)", text, re.M)
    e = re.search(r"^\s*\|e\| = " + FLOAT, text, re.M)
    if not (fom and tst and steps and e):
        return None
    return {"fom": float(fom.group(1)), "time": float(tst.group(1)),
            "step": int(steps.group(1)), "e": float(e.group(1))}

def descendants(pid):
    """pid and all its descendants (from /proc), so that mpirun's children count too."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        out.add(p)
        todo.extend(children.get(p, []))
    return out

class GpuMemPoll(threading.Thread):
    """Peak GPU memory (MiB) of a process tree, from nvidia-smi every 0.2 s; None if unseen."""
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, None, threading.Event()
    def run(self):
        while not self.done.wait(0.2):
            try:
                q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                                    "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                return
            pids, used = descendants(self.pid), 0
            for line in q.stdout.splitlines():
                f = [x.strip() for x in line.split(",")]
                if len(f) == 2 and f[0].isdigit() and int(f[0]) in pids and f[1].isdigit():
                    used += int(f[1])
            if used and (self.peak is None or used > self.peak):
                self.peak = used

NVML_ERROR_NOT_SUPPORTED = 3

class Nvml:
    """GPU energy of the devices a run can use, through NVML (libnvidia-ml.so.1 by ctypes):
    the board's energy counter (nvmlDeviceGetTotalEnergyConsumption, millijoules since the
    driver loaded; Volta and newer), else nvmlDeviceGetPowerUsage sampled every 50 ms and
    integrated with the trapezoid rule. The devices: those CUDA_VISIBLE_DEVICES names
    (indices or UUID prefixes, up to the first entry that names none), else all. Every NVML
    call is checked; the first failure disables the meter, and self.reason says why in one
    line (self.method is None then)."""
    def __init__(self, env):
        self.lib, self.handles, self.names, self.method, self.reason = None, [], [], None, None
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            for name, args in (("nvmlInit_v2", []), ("nvmlShutdown", []),
                               ("nvmlDeviceGetCount_v2", [ctypes.POINTER(ctypes.c_uint)]),
                               ("nvmlDeviceGetHandleByIndex_v2", [ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]),
                               ("nvmlDeviceGetUUID", [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint]),
                               ("nvmlDeviceGetName", [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint]),
                               ("nvmlDeviceGetTotalEnergyConsumption",
                                [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulonglong)]),
                               ("nvmlDeviceGetPowerUsage", [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint)])):
                f = getattr(lib, name)
                f.argtypes, f.restype = args, ctypes.c_int
            lib.nvmlErrorString.argtypes, lib.nvmlErrorString.restype = [ctypes.c_int], ctypes.c_char_p
        except (OSError, AttributeError) as e:
            self.reason = "NVML not usable (libnvidia-ml.so.1: %s)" % e
            return
        self.lib = lib
        if not self.call("nvmlInit_v2"):
            self.lib = None
            return
        count = ctypes.c_uint(0)
        if not self.call("nvmlDeviceGetCount_v2", ctypes.byref(count)):
            return
        handles, uuids = [], []
        for i in range(count.value):
            h, uuid, name = ctypes.c_void_p(), ctypes.create_string_buffer(96), ctypes.create_string_buffer(96)
            if not (self.call("nvmlDeviceGetHandleByIndex_v2", i, ctypes.byref(h)) and
                    self.call("nvmlDeviceGetUUID", h, uuid, 96) and self.call("nvmlDeviceGetName", h, name, 96)):
                return
            handles.append((i, h, name.value.decode(errors="replace")))
            uuids.append(uuid.value.decode(errors="replace"))
        cvd = env.get("CUDA_VISIBLE_DEVICES")
        chosen = handles
        if cvd is not None:
            chosen = []
            for tok in (t.strip() for t in cvd.split(",")):
                if tok.startswith("MIG-"):
                    return self.fail("CUDA_VISIBLE_DEVICES names a MIG instance (%s): the energy counters are "
                                     "per physical GPU" % tok)
                hit = [d for d, u in zip(handles, uuids) if (tok.isdigit() and d[0] == int(tok)) or
                       (tok and not tok.isdigit() and u.startswith(tok))]
                if not hit:
                    break
                chosen.append(hit[0])
        if not chosen:
            return self.fail("no GPU visible to NVML (CUDA_VISIBLE_DEVICES=%s, %d devices)" % (cvd, count.value))
        self.handles = [h for _, h, _ in chosen]
        self.names = ["%d: %s" % (i, n) for i, _, n in chosen]
        mj = ctypes.c_ulonglong(0)
        rcs = [self.lib.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(mj)) for h in self.handles]
        if all(rc == 0 for rc in rcs):
            self.method = "energy counter"
        elif all(rc in (0, NVML_ERROR_NOT_SUPPORTED) for rc in rcs):
            if self.power() is not None:
                self.method = "power sampled every 50 ms (no energy counter)"
        else:
            self.fail("nvmlDeviceGetTotalEnergyConsumption: %s" % self.error(next(rc for rc in rcs if rc)))

    def error(self, rc):
        try:
            return "%s (%d)" % (self.lib.nvmlErrorString(rc).decode(errors="replace"), rc)
        except Exception:  # noqa: BLE001  (the message only)
            return "NVML error %d" % rc

    def fail(self, why):
        if self.reason is None:
            self.reason = why
        self.method = None
        return None

    def call(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            self.fail("%s: %s" % (name, self.error(rc)))
        return rc == 0

    def counter(self):
        """Millijoules summed over the devices, or None (and the meter off)."""
        total, mj = 0, ctypes.c_ulonglong(0)
        for h in self.handles:
            if not self.call("nvmlDeviceGetTotalEnergyConsumption", h, ctypes.byref(mj)):
                return None
            total += mj.value
        return total

    def power(self):
        """Milliwatts summed over the devices, or None (and the meter off)."""
        total, mw = 0, ctypes.c_uint(0)
        for h in self.handles:
            if not self.call("nvmlDeviceGetPowerUsage", h, ctypes.byref(mw)):
                return None
            total += mw.value
        return total

    def close(self):
        if self.lib is not None:
            self.lib.nvmlShutdown()
            self.lib = None

class EnergyMeter(threading.Thread):
    """Joules of the GPUs from start() to stop(): the counter's difference, or the
    trapezoid rule over power samples every 50 ms; stop() returns None when the meter is off
    or a read failed (the reason in nvml.reason)."""
    def __init__(self, nvml):
        super().__init__(daemon=True)
        self.nvml, self.done, self.samples, self.mj0 = nvml, threading.Event(), [], None
    def start(self):
        if self.nvml.method == "energy counter":
            self.mj0 = self.nvml.counter()
        elif self.nvml.method:
            self.sample()
            super().start()
    def sample(self):
        p = self.nvml.power()
        if p is not None:
            self.samples.append((time.monotonic(), p))
        return p is not None
    def run(self):
        while not self.done.wait(0.05) and self.sample():
            pass
    def stop(self):
        if self.nvml.method is None:
            return None
        if self.nvml.method == "energy counter":
            mj1 = self.nvml.counter() if self.mj0 is not None else None
            return None if mj1 is None else (mj1 - self.mj0) / 1000.0
        self.done.set()
        self.join()
        if not self.sample() or len(self.samples) < 2:
            return None
        s = self.samples
        return sum(0.5 * (s[i][1] + s[i + 1][1]) * (s[i + 1][0] - s[i][0]) for i in range(len(s) - 1)) / 1000.0

def idle_watts(nvml, seconds=1.0):
    """The GPUs' power with nothing of ours running, over `seconds`; None when not measured."""
    m = EnergyMeter(nvml)
    t0 = time.monotonic()
    m.start()
    time.sleep(seconds)
    j = m.stop()
    return None if j is None else j / (time.monotonic() - t0)

def run(cmd, env, poll_gpu, timeout, nvml=None):
    """Run cmd; returns (exit status, output, peak GPU MiB or None, GPU joules or None,
    seconds)."""
    meter = EnergyMeter(nvml) if nvml else None
    if meter:
        meter.start()
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    poll = GpuMemPoll(p.pid) if poll_gpu else None
    if poll:
        poll.start()
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        out += "\n[vs_laghos] killed after %d s" % (time.time() - t0)
    seconds = time.time() - t0
    joules = meter.stop() if meter else None
    if poll:
        poll.done.set()
        poll.join()
    return p.returncode, out, poll.peak if poll else None, joules, seconds

def report_failure(name, cmd, rc, out):
    print("FAIL %s (exit %s): %s" % (name, rc, " ".join(shlex.quote(c) for c in cmd)))
    for line in out.strip().splitlines()[-15:]:
        print("    " + line)
    sys.stdout.flush()

def median_best(vals):
    return (statistics.median(vals), max(vals)) if vals else (None, None)

def fmt(x, spec="%.2f"):
    return "-" if x is None else spec % x

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blast", required=True, help="blast_gpu binary")
    ap.add_argument("--laghos", required=True, help="Laghos binary (serial build)")
    ap.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--cases", default="2:4,2:5,2:6,3:5,4:4", help="order_kinematic:rs, comma separated")
    ap.add_argument("--steps", type=int, default=20, help="Laghos -ms N = blast_gpu time.max_steps=N")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--autotune", default="cached", help="blast_gpu gpu.autotune on --device gpu")
    ap.add_argument("--extra-blast", default="", help="more blast_gpu deck overrides (one shell-quoted string)")
    ap.add_argument("--extra-laghos", default="", help="more Laghos options (one shell-quoted string)")
    ap.add_argument("--mpirun", default="", help='launcher prefix for blast_gpu, e.g. "mpirun -n 1 --bind-to none"')
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="environment for both runs")
    ap.add_argument("--tol", type=float, default=1e-9, help="relative |e| tolerance")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per run")
    ap.add_argument("--peer-may-fail", action="store_true",
                    help="a failing Laghos run (e.g. Q4 on the GPU) does not make the exit status 1")
    ap.add_argument("--baseline", help="another blast_gpu binary (e.g. an older build) run interleaved with "
                    "--blast on the same cases: the table adds its FOM and new/old, and its |e| must equal --blast's")
    ap.add_argument("--out", help="also write the table as CSV")
    a = ap.parse_args()
    cases = [tuple(int(x) for x in c.split(":")) for c in a.cases.split(",") if c]
    gpu = a.device == "gpu"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if not gpu:
        env["OMP_NUM_THREADS"] = "1"
    env.update(kv.split("=", 1) for kv in a.env)
    poll_gpu = gpu and shutil.which("nvidia-smi") is not None
    if gpu:
        env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # CUDA numbers the GPUs as NVML does
    tmp = tempfile.mkdtemp(prefix="vs_laghos_")
    ok, rows = True, []
    print("blast_gpu %s | Laghos %s | device %s | %d steps | %d reps | OMP_NUM_THREADS=%s"
          % (a.blast, a.laghos, a.device, a.steps, a.reps, env.get("OMP_NUM_THREADS", "unset")))
    nvml = Nvml(env) if gpu else None
    a.idle_w = idle_watts(nvml) if nvml and nvml.method else None
    a.energy_note = energy_note(nvml, a)
    print("GPU energy: " + a.energy_note)
    for k, rs in cases:
        n = 2 * 2 ** rs
        zones = n ** 3
        outdir = os.path.join(tmp, "q%d_rs%d" % (k, rs))
        lcmd = [a.laghos, "-p", "1", "-dim", "3", "-rs", str(rs), "-ok", str(k), "-ot", str(k - 1), "-tf", "0.6",
                "-pa", "-d", "cuda" if gpu else "cpu", "-ms", str(a.steps), "-f"] + shlex.split(a.extra_laghos)
        bcmd = shlex.split(a.mpirun) + [
            a.blast, DECK, "problem.blast_energy=2.0", "mesh.elements=%d %d %d" % (n, n, n),
            "fem.order_kinematic=%d" % k, "fem.order_thermo=%d" % (k - 1), "time.max_steps=%d" % a.steps,
            "output.print_every=100000", "output.dir=" + outdir,
            "output.overwrite=true", "checkpoint.at_end=false",
            ("gpu.autotune=" + a.autotune) if gpu else "gpu.backend=cpu"] + shlex.split(a.extra_blast)
        runs = [("laghos", lcmd, parse_laghos), ("blast", bcmd, parse_blast)]
        if a.baseline:  # the same command with the other binary and a folder of its own
            base_dir = outdir + "_baseline"
            basecmd = [a.baseline if c == a.blast else ("output.dir=" + base_dir if c == "output.dir=" + outdir else c)
                       for c in bcmd]
            runs.insert(1, ("base", basecmd, parse_blast))
        res = {"laghos": [], "blast": [], "base": []}
        failed = {"laghos": False, "blast": False, "base": False}
        for rep in range(a.reps):
            for name, cmd, parse in runs:
                if failed[name]:
                    continue
                rc, out, peak, joules, secs = run(cmd, env, poll_gpu, a.timeout, nvml)
                r = parse(out) if rc == 0 else None
                if r is None:
                    report_failure("%s Q%d-Q%d rs %d" % (name, k, k - 1, rs), cmd, rc, out)
                    failed[name] = True
                    if not (name == "laghos" and a.peer_may_fail):
                        ok = False
                    continue
                r["mib"], r["joules"], r["seconds"] = peak, joules, secs
                summary = os.path.join(base_dir if name == "base" else outdir, "summary.json")
                r["loop_j"] = None
                if name != "laghos" and os.path.exists(summary):  # the step time at full precision
                    with open(summary) as f:
                        sj = json.load(f)
                    r["time"] = sj.get("timing", {}).get("steps_max", r["time"])
                    gj = (sj.get("energy") or {}).get("gpu_joules")  # its own meter: the time steps only
                    r["loop_j"] = float(gj) if isinstance(gj, (int, float)) else None
                res[name].append(r)
                print("  Q%d-Q%d rs %d rep %d %-6s FOM %10.4f  time %9.4f s  step %d  |e| %.10e  GPU %s MiB  %s J"
                      % (k, k - 1, rs, rep + 1, name, r["fom"], r["time"], r["step"], r["e"], fmt(peak, "%d"),
                         fmt(joules, "%.1f") if joules is not None else "n/a"))
                sys.stdout.flush()
        L, B, O = res["laghos"], res["blast"], res["base"]
        row = {"case": "Q%d-Q%d, %d zones" % (k, k - 1, zones), "zones": zones}
        row["laghos_fom"], row["laghos_fom_best"] = median_best([r["fom"] for r in L])
        row["blast_fom"], row["blast_fom_best"] = median_best([r["fom"] for r in B])
        row["ratio"] = row["blast_fom"] / row["laghos_fom"] if L and B else None
        row["blast_step_s"] = statistics.median([r["time"] for r in B]) if B else None
        row["half_laghos_major_s"] = 0.5 * statistics.median([r["time"] for r in L]) if L else None
        row["holds"] = (row["blast_step_s"] <= row["half_laghos_major_s"]) if L and B else None
        row["laghos_e"] = L[-1]["e"] if L else None
        row["blast_e"] = B[-1]["e"] if B else None
        row["e_rel"] = None
        row["same_step"] = None
        if L and B:  # every pair of repetitions, so that run-to-run differences show too
            row["e_rel"] = max(abs(b["e"] - l["e"]) / abs(l["e"]) for l in L for b in B)
            row["same_step"] = len({r["step"] for r in L + B}) == 1
            ok = ok and row["e_rel"] <= a.tol and row["same_step"]
        if a.baseline:
            row["base_fom"], row["base_fom_best"] = median_best([r["fom"] for r in O])
            row["new_over_old"] = row["blast_fom"] / row["base_fom"] if O and B else None
            row["base_same_e"] = bool(O and B) and len({r["e"] for r in O + B}) == 1
            ok = ok and row["base_same_e"]
            row["base_failed"] = failed["base"] and not O
        lm = [r["mib"] for r in L if r["mib"]]
        bm = [r["mib"] for r in B if r["mib"]]
        row["laghos_kb_zone"] = 1024.0 * max(lm) / zones if lm else None
        row["blast_kb_zone"] = 1024.0 * max(bm) / zones if bm else None
        row["laghos_failed"], row["blast_failed"] = failed["laghos"] and not L, failed["blast"] and not B
        add_energy(row, L, B, O if a.baseline else None, zones, a)
        rows.append(row)
    shutil.rmtree(tmp, ignore_errors=True)
    if nvml:
        nvml.close()
        a.energy_note = energy_note(nvml, a)  # a failure during the runs names itself
        if nvml.method is None:  # and leaves no partial columns: both codes or neither
            for row in rows:
                row.update((k, None) for k in ENERGY_COLUMNS if k in row)
    print_table(rows, a)
    print_energy(rows, a)
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["case"])
            w.writeheader()
            w.writerows([{k: ("n/a" if v is None and k in ENERGY_COLUMNS else v) for k, v in r.items()}
                         for r in rows])
        print("CSV written to", a.out)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)

ENERGY_COLUMNS = ("laghos_gpu_j", "blast_gpu_j", "laghos_j_per_zone_step", "blast_j_per_zone_step",
                  "j_per_zone_step_ratio", "laghos_avg_w", "blast_avg_w", "gpu_idle_w",
                  "blast_loop_j_per_zone_step", "base_gpu_j", "base_j_per_zone_step")

def energy_note(nvml, a):
    if nvml is None:
        return "n/a (--device cpu)"
    if nvml.method is None:
        return "n/a (%s)" % nvml.reason
    return "%s, summed over GPU %s; idle %s W (1 s before the runs)" % (
        nvml.method, ", ".join(nvml.names), fmt(a.idle_w, "%.1f"))

def add_energy(row, L, B, O, zones, a):
    """The energy columns of a case (None where not measured): medians of each program's GPU
    joules per run, joules per zone-step (zones x the last step number both report), their
    ratio blast_gpu/Laghos, the average power of the runs, and the idle power."""
    def med(runs, f):
        v = [f(r) for r in runs if r.get("joules") is not None]
        return statistics.median(v) if v else None
    jzs = lambda r: r["joules"] / (zones * r["step"]) if r["step"] else None  # noqa: E731
    row["laghos_gpu_j"], row["blast_gpu_j"] = med(L, lambda r: r["joules"]), med(B, lambda r: r["joules"])
    row["laghos_j_per_zone_step"], row["blast_j_per_zone_step"] = med(L, jzs), med(B, jzs)
    row["j_per_zone_step_ratio"] = (row["blast_j_per_zone_step"] / row["laghos_j_per_zone_step"]
                                    if row["blast_j_per_zone_step"] and row["laghos_j_per_zone_step"] else None)
    row["laghos_avg_w"] = med(L, lambda r: r["joules"] / r["seconds"] if r["seconds"] > 0 else None)
    row["blast_avg_w"] = med(B, lambda r: r["joules"] / r["seconds"] if r["seconds"] > 0 else None)
    row["gpu_idle_w"] = a.idle_w
    loop = [r["loop_j"] / (zones * r["step"]) for r in B if r.get("loop_j") is not None and r["step"]]
    row["blast_loop_j_per_zone_step"] = statistics.median(loop) if loop else None
    if O is not None:
        row["base_gpu_j"], row["base_j_per_zone_step"] = med(O, lambda r: r["joules"]), med(O, jzs)

def print_energy(rows, a):
    print("\nGPU energy of each run's process (setup and the %d steps; medians): %s\n" % (a.steps + 1, a.energy_note))
    print("| case | Laghos J | blast_gpu J | Laghos J/zone-step | blast_gpu J/zone-step | blast_gpu / Laghos | "
          "Laghos avg W | blast_gpu avg W | blast_gpu time steps J/zone-step |" +
          (" baseline J/zone-step |" if a.baseline else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|" if a.baseline else ""))
    na = lambda x, spec: "n/a" if x is None else spec % x  # noqa: E731
    for r in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |%s" % (
            r["case"], na(r["laghos_gpu_j"], "%.1f"), na(r["blast_gpu_j"], "%.1f"),
            na(r["laghos_j_per_zone_step"], "%.3e"), na(r["blast_j_per_zone_step"], "%.3e"),
            na(r["j_per_zone_step_ratio"], "%.3f"), na(r["laghos_avg_w"], "%.0f"), na(r["blast_avg_w"], "%.0f"),
            na(r["blast_loop_j_per_zone_step"], "%.3e"),
            (" %s |" % na(r.get("base_j_per_zone_step"), "%.3e")) if a.baseline else ""))

def print_table(rows, a):
    tol = a.tol
    print("\n3D Sedov, %s, %d steps (Laghos -ms %d, blast_gpu time.max_steps=%d), %d reps: FOM = \"Major kernels "
          "total rate\" (Mdof x steps / s), median (best); times are medians\n"
          % (a.device.upper(), a.steps + 1, a.steps, a.steps, a.reps))
    print("| case | Laghos FOM | blast_gpu FOM | ratio | blast time steps s | 0.5 x Laghos major kernels s | "
          "holds | Laghos \\|e\\| | blast_gpu \\|e\\| | rel. diff | KB/zone Laghos | KB/zone blast_gpu |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def fom(p):
            if r[p + "_failed"]:
                return "fails"
            return "%s (%s)" % (fmt(r[p + "_fom"], "%.4g"), fmt(r[p + "_fom_best"], "%.4g"))
        agree = "-" if r["e_rel"] is None else "%.1e %s" % (
            r["e_rel"], "ok" if r["e_rel"] <= tol and r["same_step"] else
            ("DIFFERS" if r["e_rel"] > tol else "STEPS DIFFER"))
        holds = "-" if r["holds"] is None else ("yes" if r["holds"] else "no")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], fom("laghos"), fom("blast"), fmt(r["ratio"]), fmt(r["blast_step_s"], "%.4g"),
            fmt(r["half_laghos_major_s"], "%.4g"), holds, fmt(r["laghos_e"], "%.10e"), fmt(r["blast_e"], "%.10e"),
            agree, fmt(r["laghos_kb_zone"], "%.1f"), fmt(r["blast_kb_zone"], "%.1f")))
    if a.baseline:
        print("\nAgainst the baseline %s (run interleaved with --blast; |e| must be the same bits):\n" % a.baseline)
        print("| case | baseline FOM | blast_gpu FOM | new/old | same \\|e\\| |")
        print("|---|---|---|---|---|")
        for r in rows:
            base = "fails" if r["base_failed"] else "%s (%s)" % (fmt(r["base_fom"], "%.4g"), fmt(r["base_fom_best"], "%.4g"))
            blast = "fails" if r["blast_failed"] else "%s (%s)" % (fmt(r["blast_fom"], "%.4g"), fmt(r["blast_fom_best"], "%.4g"))
            print("| %s | %s | %s | %s | %s |" % (r["case"], base, blast, fmt(r["new_over_old"], "%.3f"),
                                                 "yes" if r["base_same_e"] else "NO"))

if __name__ == "__main__":
    main()
