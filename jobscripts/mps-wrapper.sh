#!/usr/bin/env bash
# mps-wrapper.sh: CUDA MPS (Multi-Process Service) for blast_gpu jobs with several MPI ranks
# per GPU. With MPS the kernels of the ranks sharing a GPU run concurrently (8 ranks on one
# H200: 135 ms/step with MPS, 635 ms/step without; docs/performance.md). Layout: one rank
# per GPU is fastest (8 ranks under MPS take 1.23-1.26x one rank's time steps on an H100);
# several per GPU where the host side needs the cores. The ranks of a GPU exchange halos in
# GPU memory; across GPUs that needs every rank to see the node's GPUs (docs/jobs.md,
# "Which layout").
#
# Two ways to use it (docs/jobs.md):
#
# 1. Once per node, around the launcher (the simplest and most robust; the job scripts and
#    jobscripts/local do this):
#        eval "$(jobscripts/mps-wrapper.sh start)"   # starts the daemon, prints the exports
#        trap 'jobscripts/mps-wrapper.sh stop' EXIT   # stop it however the script ends
#        mpirun -n 8 build/app/blast_gpu deck.ini
#    On several nodes run start/stop on each node (Slurm: srun --ntasks-per-node=1 ...) and
#    launch the ranks through this wrapper (2. below): it finds the node's daemon and sets
#    CUDA_MPS_PIPE_DIRECTORY for the rank.
#
# 2. Per rank, as a command prefix, when nothing can run once per node:
#        mpirun -n 8 jobscripts/mps-wrapper.sh build/app/blast_gpu deck.ini
#    The node-local rank 0 (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID,
#    PALS_LOCAL_RANKID, MV2_COMM_WORLD_LOCAL_RANK or JSM_NAMESPACE_LOCAL_RANK) starts the
#    daemon in a directory of its own for this launch on this node; the other ranks wait
#    until it is up (or has failed: then they run without MPS). Rank 0 runs the command as a
#    child; when it ends, rank 0 waits until every other rank of the node has started and
#    finished (each rank leaves its PID; a rank that died counts as finished), then stops
#    the daemon and removes the directory. When rank 0 is terminated instead (SIGTERM,
#    SIGINT, SIGHUP are forwarded to the command; Open MPI's mpirun may also SIGKILL it at
#    once), a watchdog it started in a session of its own waits for the other ranks and
#    stops the daemon. The daemon is stopped once, by rank 0 or its watchdog.
#
#  jobscripts/mps-wrapper.sh start|stop|status|env   the per-node form (1.)
#  jobscripts/mps-wrapper.sh COMMAND [ARGS...]       the per-rank form (2.)
#
# Variables (defaults in brackets):
#   BLAST_MPS             0 runs the command without MPS [1]
#   BLAST_MPS_DIR         per-node directory for the pipes and logs
#                         [${TMPDIR:-/tmp}/blast-mps-<user>-<job id>-<short host name>]
#   BLAST_MPS_TIMEOUT     seconds to wait for the daemon, and for the other ranks to
#                         start [60]
#   BLAST_MPS_STOP_WAIT   seconds rank 0 waits for the other ranks to end [600]
#   CUDA_MPS_PIPE_DIRECTORY  if set and a daemon listens there, it is used as it is and
#                         never stopped here
set -euo pipefail

prog=mps-wrapper.sh
ctl=nvidia-cuda-mps-control
timeout_s=${BLAST_MPS_TIMEOUT:-60}
stop_wait_s=${BLAST_MPS_STOP_WAIT:-600}

host=${HOSTNAME:-$(uname -n)}
host=${host%%.*}
note() { echo "$prog [$host]: $*" >&2; }

job_id() {
  local id=${SLURM_JOB_ID:-${PBS_JOBID:-${LSB_JOBID:-${COBALT_JOBID:-}}}}
  echo "${id:-nojob}" | tr -c 'A-Za-z0-9_.\n-' '_'
}

node_dir() {
  echo "${BLAST_MPS_DIR:-${TMPDIR:-/tmp}/blast-mps-${USER:-$(id -u)}-$(job_id)-$host}"
}

# A daemon is up when its control socket exists in the pipe directory.
daemon_up() { [ -e "$1/control" ]; }

# Start a daemon with pipes in $1/pipe, logs in $1/log; 0 when it is up.
start_daemon() {
  local dir=$1
  mkdir -p "$dir/pipe" "$dir/log"
  if daemon_up "$dir/pipe"; then
    return 0
  fi
  if ! command -v "$ctl" >/dev/null 2>&1; then
    note "$ctl not found: running without MPS"
    return 1
  fi
  if ! CUDA_MPS_PIPE_DIRECTORY="$dir/pipe" CUDA_MPS_LOG_DIRECTORY="$dir/log" "$ctl" -d; then
    note "$ctl -d failed (see $dir/log): running without MPS"
    return 1
  fi
  local waited=0
  until daemon_up "$dir/pipe"; do
    if [ "$waited" -ge $((timeout_s * 10)) ]; then
      note "the MPS daemon did not come up in ${timeout_s} s (see $dir/log): running without it"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "$host $$" >"$dir/started-by"
}

# Stop the daemon of $1 (if up), wait for it to exit (unless $2 = nowait), remove the
# directory.
stop_daemon() {
  local dir=$1 pid="" waited=0 limit=100
  [ "${2:-}" = nowait ] && limit=0
  if [ -d "$dir/pipe" ] && daemon_up "$dir/pipe" && command -v "$ctl" >/dev/null 2>&1; then
    pid=$(cat "$dir/pipe/nvidia-cuda-mps-control.pid" 2>/dev/null || true)
    echo quit | CUDA_MPS_PIPE_DIRECTORY="$dir/pipe" CUDA_MPS_LOG_DIRECTORY="$dir/log" "$ctl" \
      >/dev/null 2>&1 || note "could not send quit to the MPS daemon in $dir/pipe"
    while [ -n "$pid" ] && [ "$waited" -lt "$limit" ] && kill -0 "$pid" 2>/dev/null; do
      sleep 0.1
      waited=$((waited + 1))
    done
  fi
  if [ -d "$dir/log" ] && [ -n "${BLAST_MPS_KEEP_LOG:-}" ]; then
    cp -r "$dir/log" "$BLAST_MPS_KEEP_LOG" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

print_env() {
  echo "export CUDA_MPS_PIPE_DIRECTORY='$1/pipe' CUDA_MPS_LOG_DIRECTORY='$1/log'"
}

# A process that still runs. A rank that ended but is not yet reaped by the launcher (a
# zombie, as while the launcher is busy killing a job) counts as ended.
alive() {
  local st
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$st" ] && [ "$st" != Z ]
}

local_rank() {
  echo "${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-${PALS_LOCAL_RANKID:-${MV2_COMM_WORLD_LOCAL_RANK:-${JSM_NAMESPACE_LOCAL_RANK:-}}}}}}"
}

local_size() {
  echo "${OMPI_COMM_WORLD_LOCAL_SIZE:-${MPI_LOCALNRANKS:-${PALS_LOCAL_SIZE:-${MV2_COMM_WORLD_LOCAL_SIZE:-${JSM_NAMESPACE_LOCAL_SIZE:-}}}}}"
}

# One key per launch, the same for every rank of it on a node: the launcher's job namespace,
# else the PID of the process that started the ranks of this node (mpirun, orted, slurmstepd,
# hydra_pmi_proxy).
launch_key() {
  local k=${PMIX_NAMESPACE:-${OMPI_MCA_orte_ess_jobid:-}}
  if [ -z "$k" ] && [ -n "${SLURM_STEP_ID:-}" ]; then k="${SLURM_JOB_ID:-}.${SLURM_STEP_ID}"; fi
  echo "${k:-ppid$PPID}" | tr -c 'A-Za-z0-9_.\n-' '_'
}

# ---- per-node form -------------------------------------------------------------------------
case "${1:-}" in
  start)
    dir=$(node_dir)
    if [ "${BLAST_MPS:-1}" != 0 ] && start_daemon "$dir"; then
      note "MPS daemon up, pipes in $dir/pipe"
    fi
    print_env "$dir"
    exit 0
    ;;
  stop)
    stop_daemon "$(node_dir)"
    exit 0
    ;;
  env)
    print_env "$(node_dir)"
    exit 0
    ;;
  status)
    dir=$(node_dir)
    if daemon_up "$dir/pipe"; then echo "MPS daemon up in $dir/pipe"; else echo "no MPS daemon in $dir/pipe"; exit 1; fi
    exit 0
    ;;
  "" | -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [ -n "${1:-}" ] && exit 0
    exit 2
    ;;
  --watchdog) ;;  # internal: rank 0's watchdog (below)
  -*)
    echo "$prog: unknown option '$1' (start, stop, status, env or a command; see $prog --help)" >&2
    exit 2
    ;;
esac

# Wait until the other ranks of this node ($1/ranks/*.pid) have all started (when their
# number is known) and all ended, at most BLAST_MPS_STOP_WAIT seconds.
wait_ranks() {
  local dir=$1 n want waited=0 f pid busy=0
  want=$(local_size)
  while [ "$waited" -lt $((stop_wait_s * 10)) ]; do
    n=0
    busy=0
    for f in "$dir"/ranks/*.pid; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      pid=$(cat "$f" 2>/dev/null || true)
      if [ -n "$pid" ] && alive "$pid"; then busy=1; fi
    done
    if [ "$busy" = 0 ] && { [ -z "$want" ] || [ $((n + 1)) -ge "$want" ] ||
      [ "$waited" -ge $((timeout_s * 10)) ]; }; then
      return 0
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  note "ranks of this node still running after ${stop_wait_s} s: stopping MPS anyway"
}

# Stop the daemon once: whoever creates $1/stopping first (rank 0 or its watchdog).
stop_once() {
  mkdir "$1/stopping" 2>/dev/null && stop_daemon "$1"
  return 0
}

# The watchdog of rank 0 (in a session of its own, so that the launcher's kill does not
# reach it): when rank 0 has gone without stopping the daemon (killed: Open MPI's mpirun
# sends SIGKILL 1 s after SIGTERM, and may kill at once), wait for the other ranks, then
# stop the daemon.
if [ "${1:-}" = --watchdog ]; then
  dir=$2 pid0=$3
  while [ -d "$dir" ] && alive "$pid0"; do sleep 0.5; done
  [ -d "$dir" ] || exit 0
  wait_ranks "$dir"
  stop_once "$dir"
  exit 0
fi

# ---- per-rank form -------------------------------------------------------------------------
if [ "${BLAST_MPS:-1}" = 0 ]; then exec "$@"; fi
# An existing daemon: the caller's, or this node's from "start".
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && daemon_up "$CUDA_MPS_PIPE_DIRECTORY"; then exec "$@"; fi
ndir=$(node_dir)
if daemon_up "$ndir/pipe"; then
  export CUDA_MPS_PIPE_DIRECTORY="$ndir/pipe" CUDA_MPS_LOG_DIRECTORY="$ndir/log"
  exec "$@"
fi

lr=$(local_rank)
if [ -z "$lr" ]; then
  note "cannot tell the node-local rank (no OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, ...): running without MPS"
  exec "$@"
fi
dir="$ndir-$(launch_key)"
mkdir -p "$dir/ranks"
export CUDA_MPS_PIPE_DIRECTORY="$dir/pipe" CUDA_MPS_LOG_DIRECTORY="$dir/log"

if [ "$lr" != 0 ]; then
  # Wait for rank 0's verdict, leave our PID (exec keeps it: the PID is the command's).
  echo $$ >"$dir/ranks/$lr.pid"
  waited=0
  until [ -e "$dir/ready" ] || [ -e "$dir/failed" ]; do
    if [ "$waited" -ge $((timeout_s * 10)) ]; then
      note "rank $lr: no MPS daemon after ${timeout_s} s: running without it"
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  exec "$@"
fi

child=""
finish() {
  local rc=$?
  trap - EXIT TERM INT HUP
  if [ -n "$child" ] && alive "$child"; then kill -TERM "$child" 2>/dev/null || true; fi
  # Terminated (scancel, time limit, the launcher ending the job): the launcher ends every
  # rank, the watchdog stops the daemon once they are gone. Else: wait for the others here.
  if [ "$rc" -lt 128 ]; then
    wait_ranks "$dir"
    stop_once "$dir"
  fi
  exit "$rc"
}
# Forward termination to the command (background commands ignore SIGINT: send TERM).
forward() {
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi
  exit "$1"
}
trap finish EXIT
trap 'forward 143' TERM
trap 'forward 130' INT
trap 'forward 129' HUP
if start_daemon "$dir"; then touch "$dir/ready"; else touch "$dir/failed"; fi
if command -v setsid >/dev/null 2>&1; then
  setsid bash "$0" --watchdog "$dir" $$ </dev/null >/dev/null 2>&1 &
else
  (trap '' TERM INT HUP; exec bash "$0" --watchdog "$dir" $$) </dev/null >/dev/null 2>&1 &
fi
"$@" &
child=$!
set +e
wait "$child"
rc=$?
# A trapped signal interrupts wait: wait again for the command's own status.
while alive "$child"; do
  wait "$child"
  rc=$?
done
exit "$rc"
