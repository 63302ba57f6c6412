#!/usr/bin/env python3
"""jobscripts/slurm/cpu_only.sbatch under a real, private, single-node Slurm.

    test_slurm_real.py REPO BLAST WORKDIR

Starts munged, slurmctld and slurmd as daemons on localhost, every file of theirs in a
temporary directory (their own munge key and socket, slurm.conf, state, spool, logs, free
TCP ports), points every client at them with SLURM_CONF, and:

  1. submits cpu_only.sbatch on a small 2D Sedov deck (2 ranks): the job must end
     COMPLETED with exit 0:0, its output file must name the results, and summary.json
     must say "completed": true with a finite e_norm on 2 ranks;
  2. submits it with a 1-minute time limit and the script's own signal form
     (--signal=USR1@20, command-line options override the #SBATCH lines) on a deck that
     would run for minutes: Slurm must send SIGUSR1 to the job step, blast_gpu must write a
     checkpoint and stop cleanly ("completed": false, "stopped_by": "SIGUSR1", exit 0)
     before the limit;
  3. resubmits the script with OVERRIDES="... checkpoint.restart=<that checkpoint>" (how
     the scripts restart: docs/jobs.md) to run to the end, and compares the result bit for
     bit (e_norm, t, dt, energies, steps, attempts) with an uninterrupted mpirun run.

The restart and the uninterrupted run end at time.max_steps = the checkpoint's step
attempts + EXTRA_STEPS: the signal comes 10-40 s into the job, so the test costs about
twice that whatever the machine's speed. (slurmctld checks the time limits every 30 s and
sends the signal at the first check within sig_time + 30 s of the end: measured here, a
job with --time=1 --signal=B:USR1@5 got it 27 s after its start. So @20 on a 1-minute job
is 10-40 s in; @45 would be the first check after the start, possibly before blast_gpu
runs, and the signal to the job steps would then reach no process.)
max_steps changes no bits of the steps before it.

  4. submits the script with RESUBMIT=2 (automatic resubmission) and a 1-minute limit on a
     run that needs about a minute and a half of computing (its time.max_steps from the
     rate measured in 2.): the job is signalled, checkpoints, resubmits itself from the
     checkpoint (jobscripts/slurm/blast-slurm resubmit; the continuation gets --time=3
     through RESUBMIT_SBATCH_OPTS, so it is not signalled again), and the continuation ends
     completed with the same e_norm, t, dt, energies, steps and attempts as an uninterrupted
     mpirun run of the same deck.

Ranks are launched as the script does: srun (its LAUNCHER default). slurm.conf says
MpiDefault=none, Slurm's own default: the script must pass --mpi=pmix itself (it does when
the PMIx plugin is installed: Debian 12's mpi/pmix_v4, and its Open MPI 4.1 is built
against the same PMIx 4). With --mpi=none, Open MPI stops in MPI_Init ("...direct launched
using srun, but OMPI was not built with SLURM's PMI support"); summary.json's "ranks" = 2
and --mpi=pmix in the run's command.txt are checked.

Everything is torn down at the end, also on failure: the jobs cancelled, the daemons
stopped by their pids, and every process that carries this run's SLURM_CONF in its
environment (slurmstepd, ranks) must be gone. Exit 0: pass; 1: fail (with the daemons'
log tails); 77: skipped for a named limitation of the environment (not root, or no
sockets on localhost).
"""
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77
RANKS = 2
EXTRA_STEPS = 20           # steps the restart runs beyond the checkpoint
TIME_LIMIT_MIN = 1         # sbatch --time (minutes; Slurm's smallest)
SIGNAL_SECONDS = 20        # --signal=USR1@20: 10-40 s into the job (see above)
SMALL_DECK = ["mesh.refine_serial=2"]          # 64 zones, t_final 0.8: a few seconds
LONG_DECK = ["mesh.refine_serial=5"]           # 4096 zones, t_final 0.8: many minutes

T0 = time.time()
# Everything, teardown included, within ctest's TIMEOUT (900 s): past this the test fails
# and tears down (ctest's own kill would leave the daemons, which are not its children).
DEADLINE = T0 + float(os.environ.get("BLAST_SLURM_TEST_BUDGET", "780"))


def log(msg):
    print("[%6.1f s] %s" % (time.time() - T0, msg), flush=True)


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def tail(path, n=40):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return "(%s)" % e
    return "\n".join(lines[-n:])


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Cluster:
    def __init__(self, tmp, tools):
        self.tmp = tmp
        self.tools = tools
        self.conf = os.path.join(tmp, "slurm.conf")
        self.munge_dir = os.path.join(tmp, "munge")
        self.socket = os.path.join(self.munge_dir, "munge.socket")
        self.log_dir = os.path.join(tmp, "log")
        self.pidfiles = {
            "munged": os.path.join(self.munge_dir, "munged.pid"),
            "slurmctld": os.path.join(tmp, "slurmctld.pid"),
            "slurmd": os.path.join(tmp, "slurmd.pid"),
        }
        self.pids = {}
        self.jobcomp = os.path.join(self.log_dir, "jobcomp.txt")
        # Every client and daemon sees this cluster only (not one of an outer allocation).
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_", "SINFO_"))}
        env["SLURM_CONF"] = self.conf
        self.env = env

    def logs(self):
        return [os.path.join(self.munge_dir, "munged.log"),
                os.path.join(self.log_dir, "slurmctld.log"),
                os.path.join(self.log_dir, "slurmd.log")]

    def log_tails(self):
        return "\n".join("---- %s (tail) ----\n%s" % (p, tail(p)) for p in self.logs())

    def run(self, cmd, check=True, timeout=60, **kw):
        p = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=timeout, **kw)
        if check and p.returncode != 0:
            raise Fail("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
        return p

    def read_pid(self, name, wait=10):
        end = time.time() + wait
        while time.time() < end:
            try:
                with open(self.pidfiles[name]) as f:
                    pid = int(f.read().split()[0])
                self.pids[name] = pid
                return pid
            except (OSError, ValueError, IndexError):
                time.sleep(0.2)
        raise Fail("%s wrote no pid file %s\n%s" % (name, self.pidfiles[name], self.log_tails()))

    def start(self):
        os.makedirs(self.munge_dir)
        os.makedirs(self.log_dir)
        for d in ("state", "spool"):
            os.makedirs(os.path.join(self.tmp, d))
        # munged checks permissions: the socket's directories must be searchable by all,
        # the key readable by its owner only.
        os.chmod(self.tmp, 0o755)
        os.chmod(self.munge_dir, 0o755)
        key = os.path.join(self.munge_dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        p = self.run([self.tools["munged"], "--key-file=" + key, "--socket=" + self.socket,
                      "--pid-file=" + self.pidfiles["munged"],
                      "--log-file=" + os.path.join(self.munge_dir, "munged.log"),
                      "--seed-file=" + os.path.join(self.munge_dir, "munged.seed")], check=False)
        if p.returncode != 0:
            raise Fail("munged did not start (exit %d): %s%s\n%s" % (
                p.returncode, p.stdout, p.stderr, self.log_tails()))
        self.read_pid("munged")
        log("munged up (pid %d), socket %s" % (self.pids["munged"], self.socket))

        # The node as slurmd sees it ("NodeName=vm CPUs=2 Boards=1 ... RealMemory=24105").
        c = self.run([self.tools["slurmd"], "-C"]).stdout
        line = next((l for l in c.splitlines() if l.startswith("NodeName=")), None)
        if line is None:
            raise Fail("slurmd -C printed no NodeName line:\n" + c)
        hw = dict(w.split("=", 1) for w in line.split())
        self.node = socket.gethostname().split(".")[0]
        self.cpus = int(hw["CPUs"])
        hw_words = " ".join("%s=%s" % (k, hw[k]) for k in (
            "CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore", "RealMemory")
            if k in hw)
        t = self.tmp
        conf = """\
# Generated by tests/jobscripts/test_slurm_real.py: a private single-node Slurm on localhost.
ClusterName=blasttest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={t}/state
SlurmdSpoolDir={t}/spool
SlurmctldPidFile={t}/slurmctld.pid
SlurmdPidFile={t}/slurmd.pid
SlurmctldLogFile={t}/log/slurmctld.log
SlurmdLogFile={t}/log/slurmd.log
# debug: slurmctld logs "job_time_limit: warning signal 10 to JobId=N" (the signal time)
SlurmctldDebug=debug
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Open MPI 4.1 under srun: Debian's Slurm has mpi/pmix (PMIx 4, as Debian's Open MPI).
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# No accounting (no sacct): each finished job's state and exit code go to a text file.
JobCompType=jobcomp/filetxt
JobCompLoc={t}/log/jobcomp.txt
SchedulerType=sched/backfill
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=30
MinJobAge=30
# At the time limit: SIGTERM, SIGKILL 10 s later; no grace beyond the limit.
KillWait=10
OverTimeLimit=0
NodeName={node} NodeAddr=127.0.0.1 {hw} State=UNKNOWN
PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP
""".format(node=self.node, ctld_port=free_port(), d_port=free_port(), socket=self.socket,
           t=t, hw=hw_words)
        with open(self.conf, "w") as f:
            f.write(conf)
        for name, cmd in (("slurmctld", [self.tools["slurmctld"], "-f", self.conf]),
                          ("slurmd", [self.tools["slurmd"], "-f", self.conf, "-N", self.node])):
            p = self.run(cmd, check=False)
            if p.returncode != 0:
                raise Fail("%s did not start (exit %d): %s%s\n%s" % (
                    name, p.returncode, p.stdout, p.stderr, self.log_tails()))
            self.read_pid(name)
            log("%s up (pid %d)" % (name, self.pids[name]))
        # Wait until the node is idle.
        end = time.time() + 60
        state = ""
        while time.time() < end:
            for name, pid in self.pids.items():
                if not pid_alive(pid):
                    raise Fail("%s (pid %d) died\n%s" % (name, pid, self.log_tails()))
            p = self.run([self.tools["sinfo"], "-h", "-N", "-o", "%N %t"], check=False)
            state = (p.stdout + p.stderr).strip()
            if p.returncode == 0 and state.split()[-1:] == ["idle"]:
                log("sinfo: node %s" % state)
                return
            time.sleep(0.5)
        raise Fail("the node did not become idle in 60 s (sinfo: %s)\n%s" % (state, self.log_tails()))

    def our_processes(self):
        """Processes with this cluster's SLURM_CONF in their environment (daemons, slurmstepd,
        the job's shells and ranks), but not this test or its ancestors."""
        mine = set()
        p = os.getpid()
        while p > 1:
            mine.add(p)
            try:
                with open("/proc/%d/stat" % p) as f:
                    p = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                break
        tag = ("SLURM_CONF=" + self.conf).encode()
        found = {}
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) in mine:
                continue
            try:
                with open("/proc/%s/environ" % d, "rb") as f:
                    if tag not in f.read().split(b"\0"):
                        continue
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            if pid_alive(int(d)):
                found[int(d)] = cmd
        return found | {pid: name for name, pid in self.pids.items() if pid_alive(pid)}

    def stop(self):
        """Cancel the jobs, stop the daemons by pid; returns the processes left (killed)."""
        if "slurmctld" in self.pids and pid_alive(self.pids["slurmctld"]):
            self.run([self.tools["scancel"], "--user=root"], check=False, timeout=30)
            end = time.time() + 30
            while time.time() < end:
                p = self.run([self.tools["squeue"], "-h", "-o", "%i"], check=False, timeout=30)
                if p.returncode != 0 or not p.stdout.strip():
                    break
                time.sleep(0.5)
        for name in ("slurmd", "slurmctld", "munged"):
            pid = self.pids.get(name)
            if pid and pid_alive(pid):
                os.kill(pid, signal.SIGTERM)
                end = time.time() + 15
                while pid_alive(pid) and time.time() < end:
                    time.sleep(0.2)
        time.sleep(0.5)
        left = self.our_processes()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return left


def budget(seconds):
    """seconds, or less where the test's budget ends sooner (at least 1)."""
    return max(1.0, min(seconds, DEADLINE - time.time()))


def on_signal(signum, frame):
    raise Fail("interrupted by %s" % signal.Signals(signum).name)


def job_record(cluster, job, timeout):
    """Wait for the job's line in the jobcomp file: its fields (JobState, ExitCode, ...)."""
    end = time.time() + budget(timeout)
    pat = re.compile(r"^JobId=%s\s" % job)
    while time.time() < end:
        try:
            with open(cluster.jobcomp) as f:
                for line in f:
                    if pat.match(line):
                        return dict(re.findall(r"(\w+)=(\S*)", line))
        except FileNotFoundError:
            pass
        for name, pid in cluster.pids.items():
            if not pid_alive(pid):
                raise Fail("%s (pid %d) died while job %s ran\n%s" % (
                    name, pid, job, cluster.log_tails()))
        time.sleep(1)
    p = cluster.run([cluster.tools["scontrol"], "show", "job", str(job)], check=False)
    raise Fail("job %s did not end within %d s:\n%s%s\n%s" % (
        job, timeout, p.stdout, p.stderr, cluster.log_tails()))


def submit(cluster, repo, blast, deck, out, overrides, sbatch_opts, timeout):
    env = dict(cluster.env, REPO=repo, BLAST=blast, DECK=deck, OUT=out,
               OVERRIDES=" ".join(overrides))
    script = os.path.join(repo, "jobscripts", "slurm", "cpu_only.sbatch")
    out_file = os.path.join(os.path.dirname(out), os.path.basename(out) + "-%j.out")
    cmd = [cluster.tools["sbatch"], "--parsable", "--ntasks-per-node=%d" % RANKS,
           "--output=" + out_file] + sbatch_opts + [script]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, cwd=repo)
    if p.returncode != 0:
        raise Fail("sbatch failed (exit %d): %s%s\n%s" % (p.returncode, p.stdout, p.stderr,
                                                          cluster.log_tails()))
    job = p.stdout.strip().split(";")[0]
    log("submitted job %s: sbatch %s cpu_only.sbatch, OVERRIDES=%r" % (
        job, " ".join(cmd[2:-1]), env["OVERRIDES"]))
    rec = job_record(cluster, job, timeout)
    out_path = out_file.replace("%j", job)
    text = tail(out_path, 200)
    log("job %s: %s, exit %s, %s .. %s" % (job, rec.get("JobState"), rec.get("ExitCode"),
                                          rec.get("StartTime"), rec.get("EndTime")))
    return job, rec, out_path, text


def load_summary(path, what, job_text):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Fail("%s: no readable %s (%s); the job's output:\n%s" % (what, path, e, job_text))


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def not_plain(d, names):
    """copytree: leave out the munge key, sockets, FIFOs and links."""
    return [n for n in names if n.endswith(".key") or os.path.islink(os.path.join(d, n)) or not (
        os.path.isdir(os.path.join(d, n)) or os.path.isfile(os.path.join(d, n)))]


def stamp(s):
    return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    repo, blast, work = (os.path.abspath(a) for a in argv[1:])
    deck = os.path.join(repo, "inputs", "sedov2d.ini")
    tools = {}
    for name in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "squeue", "scancel", "scontrol",
                 "mpirun"):
        tools[name] = (os.environ.get("BLAST_" + name.upper()) or shutil.which(name) or
                       shutil.which(name, path="/usr/sbin:/sbin"))
        if not tools[name]:
            raise Fail("no %s found (PATH, /usr/sbin)" % name)
    # Named limitations of the environment: skip (77), saying which.
    if os.geteuid() != 0:
        raise Skip("not root: slurmd (SlurmdUser=root) must start the job as its user")
    try:
        free_port()
    except OSError as e:
        raise Skip("cannot listen on 127.0.0.1 (%s): the daemons need TCP ports" % e)

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # Daemon files in a short path (Unix socket paths: at most 107 bytes), results in WORKDIR.
    tmp = tempfile.mkdtemp(prefix="blast-slurm-")
    cluster = Cluster(tmp, tools)
    ok = False
    try:
        log("Slurm in %s (SLURM_CONF=%s)" % (tmp, cluster.conf))
        cluster.start()
        check(cluster.cpus >= RANKS, "the node has %d CPUs, the test needs %d" % (cluster.cpus, RANKS))
        p = cluster.run([tools["scontrol"], "show", "config"])
        for key in ("MpiDefault", "TaskPlugin", "KillWait", "OverTimeLimit"):
            m = re.search(r"^%s\s*=\s*(.*)$" % key, p.stdout, re.M)
            log("  %s = %s" % (key, m.group(1).strip() if m else "?"))

        # 1. A plain run of the script: completes.
        out1 = os.path.join(work, "plain")
        job1, rec, outf, text = submit(cluster, repo, blast, deck, out1, SMALL_DECK,
                                       ["--time=5"], 300)
        check(rec.get("JobState") == "COMPLETED" and rec.get("ExitCode") == "0:0",
              "job %s: %s exit %s; output:\n%s" % (job1, rec.get("JobState"), rec.get("ExitCode"), text))
        check("local: results in " + out1 in text, "job %s output lacks 'local: results in %s':\n%s"
              % (job1, out1, text))
        s1 = load_summary(os.path.join(out1, "run_np%d" % RANKS, "summary.json"), "job " + job1, text)
        check(s1.get("completed") is True and s1.get("stopped_by") == "",
              "job %s: completed %r stopped_by %r" % (job1, s1.get("completed"), s1.get("stopped_by")))
        check(isinstance(s1.get("e_norm"), float) and math.isfinite(s1["e_norm"]) and s1["e_norm"] > 0,
              "job %s: e_norm %r" % (job1, s1.get("e_norm")))
        check(s1.get("ranks") == RANKS, "job %s: %r ranks, not one %d-rank MPI job (srun without "
              "PMIx?)" % (job1, s1.get("ranks"), RANKS))
        with open(os.path.join(out1, "run_np%d" % RANKS, "command.txt")) as f:
            cmd1 = f.read().strip().splitlines()[-1]
        check(" srun " in " %s " % cmd1, "job %s did not launch through srun: %s" % (job1, cmd1))
        log("job %s: completed, %d steps, |e| = %.17g, %d ranks via: %s" % (
            job1, s1["steps"], s1["e_norm"], s1["ranks"], cmd1[cmd1.index("srun"):][:90]))

        # 2. The time limit expires while the run goes on: SIGUSR1, checkpoint, clean stop.
        out2 = os.path.join(work, "limited")
        sig = "--signal=USR1@%d" % SIGNAL_SECONDS  # the script's form (USR1 to the job steps)
        job2, rec, outf, text = submit(cluster, repo, blast, deck, out2, LONG_DECK,
                                       ["--time=%d" % TIME_LIMIT_MIN, sig], 300)
        start, end = stamp(rec["StartTime"]), stamp(rec["EndTime"])
        check(rec.get("JobState") == "COMPLETED" and rec.get("ExitCode") == "0:0",
              "job %s (time limit %d min, %s): %s exit %s (not a clean stop before the limit); "
              "output:\n%s" % (job2, TIME_LIMIT_MIN, sig, rec.get("JobState"), rec.get("ExitCode"), text))
        check(end - start < 60 * TIME_LIMIT_MIN, "job %s ran %d s, past its limit" % (job2, end - start))
        s2 = load_summary(os.path.join(out2, "run_np%d" % RANKS, "summary.json"), "job " + job2, text)
        check(s2.get("completed") is False and s2.get("stopped_by") == "SIGUSR1",
              "job %s: completed %r stopped_by %r (expected false, SIGUSR1); output:\n%s" % (
                  job2, s2.get("completed"), s2.get("stopped_by"), text))
        check("stopped by SIGUSR1" in tail(os.path.join(out2, "run_np%d" % RANKS, "stdout.txt"), 400),
              "job %s: blast_gpu's stdout does not say 'stopped by SIGUSR1'" % job2)
        chk = s2.get("checkpoint") or ""
        k = s2["steps"]
        check(os.path.isfile(chk) and os.path.basename(chk) == "chk_%08d.h5" % k,
              "job %s: checkpoint %r missing or not of step %d" % (job2, chk, k))
        warn = [l for l in tail(os.path.join(cluster.log_dir, "slurmctld.log"), 100000).splitlines()
                if "warning signal" in l and "JobId=%s" % job2 in l]
        sig_at = "?"
        if warn:
            m = re.match(r"\[(\S+?)(\.\d+)?\]", warn[0])
            sig_at = "%.0f s" % (stamp(m.group(1)) - start) if m else warn[0]
        log("job %s: SIGUSR1 (slurmctld: %s) %s after the start, ended %d s after it, "
            "checkpoint at step %d (%d attempts, t = %.6g): %s" % (
                job2, warn[0].split("] ", 1)[-1] if warn else "no log line", sig_at, end - start, k,
                s2["step_attempts"], s2["t"], chk))

        # 3. Resubmission from the checkpoint, to the end; and the uninterrupted run.
        max_steps = s2["step_attempts"] + EXTRA_STEPS
        final = LONG_DECK + ["time.max_steps=%d" % max_steps]
        out3 = os.path.join(work, "restarted")
        job3, rec, outf, text = submit(cluster, repo, blast, deck, out3,
                                       final + ["checkpoint.restart=" + chk], ["--time=5"], 600)
        check(rec.get("JobState") == "COMPLETED" and rec.get("ExitCode") == "0:0",
              "job %s: %s exit %s; output:\n%s" % (job3, rec.get("JobState"), rec.get("ExitCode"), text))
        s3 = load_summary(os.path.join(out3, "run_np%d" % RANKS, "summary.json"), "job " + job3, text)
        check(s3.get("completed") is True and s3.get("restart_from") == chk and
              s3.get("restart_steps") == k and s3.get("run_id") == s2.get("run_id"),
              "job %s: completed %r, restart_from %r (expected %s), restart_steps %r, run_id %r/%r" % (
                  job3, s3.get("completed"), s3.get("restart_from"), chk, s3.get("restart_steps"),
                  s3.get("run_id"), s2.get("run_id")))

        ref = os.path.join(work, "uninterrupted")
        env = dict(cluster.env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMP_NUM_THREADS="1")
        cmd = [tools["mpirun"], "-n", str(RANKS), "--oversubscribe", blast, deck] + final + [
            "output.dir=" + ref, "output.print_every=100000", "checkpoint.at_end=false",
            "gpu.backend=cpu"]  # as the script's runs (BACKEND=cpu), also in a CUDA build
        log("uninterrupted: " + " ".join(cmd))
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=budget(600))
        except subprocess.TimeoutExpired:
            raise Fail("uninterrupted run: still running at the test's time budget")
        check(p.returncode == 0, "uninterrupted run: exit %d\n%s%s" % (p.returncode, p.stdout[-3000:],
                                                                        p.stderr[-3000:]))
        sr = load_summary(os.path.join(ref, "summary.json"), "uninterrupted run", p.stdout[-3000:])
        check(sr.get("completed") is True, "uninterrupted run: completed %r" % sr.get("completed"))
        diffs = []
        for key in ("e_norm", "t", "dt", "energy_total", "energy_internal", "energy_kinetic",
                    "steps", "step_attempts", "zones", "ranks"):
            a, b = s3.get(key), sr.get(key)
            same = a == b and type(a) is type(b)
            diffs += [] if same else ["%s: restarted %r, uninterrupted %r" % (key, a, b)]
        log("restarted:     steps %d, |e| = %.17g (%s)" % (s3["steps"], s3["e_norm"], s3["e_norm"].hex()))
        log("uninterrupted: steps %d, |e| = %.17g (%s)" % (sr["steps"], sr["e_norm"], sr["e_norm"].hex()))
        check(not diffs, "restart from the time-limit checkpoint differs from the uninterrupted "
              "run:\n  " + "\n  ".join(diffs))
        log("bitwise equal: e_norm, t, dt, energies, steps, attempts")
        with open(os.path.join(out1, "run_np%d" % RANKS, "command.txt")) as f:
            check(" --mpi=pmix " in f.read(), "job %s: the script's srun line lacks --mpi=pmix" % job1)

        # 4. Automatic resubmission: RESUBMIT=2, the time limit stops the run, the job
        # resubmits itself from its checkpoint, the continuation completes; the result equals
        # an uninterrupted run's. About 75 s of computing at the rate of job 2: the signal
        # (at most 40 s in) always comes first.
        rate = s2["step_attempts"] / max(1.0, float(s2.get("wall_seconds") or 1.0))
        m4 = max(s2["step_attempts"] + EXTRA_STEPS, int(rate * 75))
        deck4 = LONG_DECK + ["time.max_steps=%d" % m4]
        ref4 = os.path.join(work, "uninterrupted4")
        cmd = [tools["mpirun"], "-n", str(RANKS), "--oversubscribe", blast, deck] + deck4 + [
            "output.dir=" + ref4, "output.print_every=100000", "checkpoint.at_end=false",
            "gpu.backend=cpu"]
        # The chain, then the uninterrupted run (2 cores: nothing gained in parallel).
        out4 = os.path.join(work, "resubmitted")
        cluster.env.update(RESUBMIT="2", RESUBMIT_SBATCH_OPTS="--time=5 --signal=USR1@20")
        try:
            job4, rec, outf4, text = submit(cluster, repo, blast, deck, out4, deck4,
                                            ["--time=%d" % TIME_LIMIT_MIN, sig], 300)
        finally:
            for k in ("RESUBMIT", "RESUBMIT_SBATCH_OPTS"):
                cluster.env.pop(k, None)
        check(rec.get("JobState") == "COMPLETED" and rec.get("ExitCode") == "0:0",
              "job %s: %s exit %s; output:\n%s" % (job4, rec.get("JobState"),
                                                    rec.get("ExitCode"), text))
        s4 = load_summary(os.path.join(out4, "run_np%d" % RANKS, "summary.json"), "job " + job4,
                          text)
        check(s4.get("completed") is False and s4.get("stopped_by") == "SIGUSR1",
              "job %s: completed %r stopped_by %r (expected false, SIGUSR1; max_steps %d)" % (
                  job4, s4.get("completed"), s4.get("stopped_by"), m4))
        m = re.search(r"resubmitted as job (\d+) \(1 of at most 2\), results in (\S+)", text)
        check(m is not None, "job %s: no 'resubmitted as job' line; output:\n%s" % (job4, text))
        job5, out5 = m.group(1), m.group(2)
        check(os.path.abspath(out5) == out4 + "-r1", "continuation results in %s, expected %s"
              % (out5, out4 + "-r1"))
        rec5 = job_record(cluster, job5, 400)
        text5 = tail(outf4, 200)  # the continuation appends to the same output file
        check(rec5.get("JobState") == "COMPLETED" and rec5.get("ExitCode") == "0:0",
              "continuation job %s: %s exit %s; output:\n%s" % (
                  job5, rec5.get("JobState"), rec5.get("ExitCode"), text5))
        s5 = load_summary(os.path.join(out4 + "-r1", "run_np%d" % RANKS, "summary.json"),
                          "job " + job5, text5)
        check(s5.get("completed") is True and s5.get("restart_from") == s4.get("checkpoint")
              and s5.get("run_id") == s4.get("run_id"),
              "continuation job %s: completed %r, restart_from %r (expected %r)" % (
                  job5, s5.get("completed"), s5.get("restart_from"), s4.get("checkpoint")))
        check("the run completed" in text5, "continuation job %s: no 'the run completed' "
              "line (no further resubmission); output:\n%s" % (job5, text5))
        log("uninterrupted: " + " ".join(cmd))
        try:
            ref_p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=budget(600))
        except subprocess.TimeoutExpired:
            raise Fail("uninterrupted run 4: still running at the test's time budget")
        ref_out = ref_p.stdout + ref_p.stderr
        check(ref_p.returncode == 0, "uninterrupted run 4: exit %d\n%s" % (ref_p.returncode,
                                                                            ref_out[-3000:]))
        sr4 = load_summary(os.path.join(ref4, "summary.json"), "uninterrupted run 4", ref_out[-3000:])
        diffs = []
        for key in ("completed", "e_norm", "t", "dt", "energy_total", "energy_internal",
                    "energy_kinetic", "steps", "step_attempts", "zones", "ranks"):
            a, b = s5.get(key), sr4.get(key)
            diffs += [] if a == b and type(a) is type(b) else ["%s: %r, uninterrupted %r" % (key, a, b)]
        check(not diffs, "automatic resubmission differs from the uninterrupted run:\n  " +
              "\n  ".join(diffs))
        log("job %s stopped at step %d, resubmitted as job %s, completed at step %d: |e| = %.17g "
            "bitwise equal to the uninterrupted run" % (job4, s4["steps"], job5, s5["steps"],
                                                        s5["e_norm"]))
        ok = True
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # the teardown runs to its end
        left = cluster.stop()
        if left:
            ok = False
            print("processes left behind (killed): %s" % left, file=sys.stderr)
        else:
            log("torn down: no process with this SLURM_CONF left")
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            keep = os.path.join(work, "slurm-files")
            try:
                shutil.copytree(tmp, keep, ignore=not_plain, dirs_exist_ok=True)
            except (OSError, shutil.Error) as e:
                print("copying %s: %s" % (tmp, e), file=sys.stderr)
            shutil.rmtree(tmp, ignore_errors=True)
            print("the daemons' files are in %s" % keep, file=sys.stderr)
    if ok:
        log("PASS")
    return 0 if ok else 1


if __name__ == "__main__":
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        sys.exit(main(sys.argv))
    except Skip as e:
        print("SKIP: %s" % e)
        sys.exit(SKIP)
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
