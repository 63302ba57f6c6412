#!/usr/bin/env bash
# jobscripts/mps-wrapper.sh with a fake nvidia-cuda-mps-control (fake-bin/): the per-rank
# form starts one daemon per node and launch, stops it once, after every rank has finished,
# also when rank 0 fails or the job is terminated; the per-node form (start/stop) and
# jobscripts/local MPS=1 start and stop exactly one daemon; without the MPS tool the command
# still runs.
#
#   test_mps_wrapper.sh REPO WORKDIR MPIEXEC BLAST
set -euo pipefail
repo=$1 work=$2 mpiexec=$3 blast=$4
wrapper=$repo/jobscripts/mps-wrapper.sh
rm -rf "$work"
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp FAKE_MPS_LOG=$work/mps.log
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY BLAST_MPS_DIR
plain_path=$PATH
export PATH="$repo/tests/jobscripts/fake-bin:$PATH"
: >"$FAKE_MPS_LOG"
failures=0

# Daemons left behind by a failed check are stopped by PID at the end.
cleanup() {
  local f
  for f in $(find "$work" -name nvidia-cuda-mps-control.pid 2>/dev/null); do
    kill "$(cat "$f")" 2>/dev/null || true
  done
}
trap cleanup EXIT

check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what" >&2
    failures=$((failures + 1))
  fi
}
count() { grep -c "^$1 " "$FAKE_MPS_LOG" || true; }
leftovers() { [ -z "$(find "$TMPDIR" -maxdepth 1 -name 'blast-mps-*')" ]; }

# 1. Per rank: rank 0 ends at once, the others 1.0-1.6 s later; every rank sees the daemon.
"$mpiexec" -n 4 --oversubscribe "$wrapper" bash -c '
  r=$OMPI_COMM_WORLD_LOCAL_RANK
  [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] || { echo "rank $r: no MPS daemon" >&2; exit 5; }
  [ "$r" = 0 ] || sleep "1.$((r * 2))"
  echo "end $(date +%s.%N) rank $r" >>"$FAKE_MPS_LOG"'
check "per rank: 4 ranks ran" [ "$(count end)" = 4 ]
check "per rank: one daemon started" [ "$(count start)" = 1 ]
check "per rank: one daemon stopped" [ "$(count quit)" = 1 ]
last_end=$(awk '$1 == "end" {print $2}' "$FAKE_MPS_LOG" | sort -n | tail -n 1)
quit=$(awk '$1 == "quit" {print $2}' "$FAKE_MPS_LOG" | tail -n 1)
check "per rank: stopped after the last rank ended" awk -v q="$quit" -v e="$last_end" 'BEGIN {exit !(q > e)}'
check "per rank: its directory removed" leftovers

# 2. Rank 0 fails: the exit status comes through, the daemon is stopped.
: >"$FAKE_MPS_LOG"
set +e
"$mpiexec" -n 2 --oversubscribe "$wrapper" bash -c 'exit $((OMPI_COMM_WORLD_RANK == 0 ? 3 : 0))' 2>/dev/null
rc=$?
set -e
check "rank 0 fails: the launcher fails (exit $rc)" [ "$rc" != 0 ]
check "rank 0 fails: one daemon started and stopped" [ "$(count start)/$(count quit)" = 1/1 ]
check "rank 0 fails: its directory removed" leftovers

# 3. The job is terminated (scancel, time limit): Open MPI's mpirun sends SIGCONT, SIGTERM
#    and SIGKILL to the ranks, rank 0 may die at once; its watchdog stops the daemon.
: >"$FAKE_MPS_LOG"
"$mpiexec" -n 3 --oversubscribe "$wrapper" sleep 60 >/dev/null 2>&1 &
job=$!
for _ in $(seq 100); do
  [ "$(find "$TMPDIR" -name control | wc -l)" = 1 ] && break
  sleep 0.1
done
sleep 0.5
kill -TERM "$job"
wait "$job" 2>/dev/null || true
for _ in $(seq 100); do
  [ "$(count quit)" = 1 ] && leftovers && break
  sleep 0.1
done
check "terminated: one daemon started and stopped" [ "$(count start)/$(count quit)" = 1/1 ]
check "terminated: its directory removed" leftovers

# 4. Per node: start once, the wrapper uses that daemon, stop once.
: >"$FAKE_MPS_LOG"
export BLAST_MPS_DIR=$work/node
eval "$("$wrapper" start 2>/dev/null)"
check "per node: started" "$wrapper" status
check "per node: exports the pipe directory" [ "$CUDA_MPS_PIPE_DIRECTORY" = "$BLAST_MPS_DIR/pipe" ]
"$mpiexec" -n 2 --oversubscribe "$wrapper" bash -c \
  '[ "$CUDA_MPS_PIPE_DIRECTORY" = "$BLAST_MPS_DIR/pipe" ] && echo "end $(date +%s.%N)" >>"$FAKE_MPS_LOG"'
check "per node: ranks use the node's daemon" [ "$(count end)" = 2 ]
"$wrapper" stop
check "per node: one daemon started and stopped" [ "$(count start)/$(count quit)" = 1/1 ]
check "per node: directory removed" [ ! -e "$BLAST_MPS_DIR" ]
unset BLAST_MPS_DIR CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY

# 5. No MPS tool: the command runs anyway.
out=$(PATH=$plain_path "$mpiexec" -n 2 --oversubscribe "$wrapper" echo ran 2>/dev/null)
check "no nvidia-cuda-mps-control: the command runs" [ "$(echo "$out" | grep -c ran)" = 2 ]

# 6. jobscripts/local MPS=1: one daemon for the study, stopped at the end.
: >"$FAKE_MPS_LOG"
BLAST=$blast OUT=$work/local MPS=1 RANKS="2" STEPS=1 ZONES_PER_RANK=2 "$repo/jobscripts/local" \
  run -- "mesh.elements=2 2 2" >"$work/local.log" 2>&1
check "local MPS=1: the run succeeded" [ -s "$work/local/run_np2/summary.json" ]
check "local MPS=1: its command saw the daemon" grep -q "^CUDA_MPS_PIPE_DIRECTORY=" "$work/local/run_np2/env.txt"
check "local MPS=1: one daemon started and stopped" [ "$(count start)/$(count quit)" = 1/1 ]
check "local MPS=1: directory removed" leftovers

[ "$failures" = 0 ] || { echo "$failures check(s) failed; log: $FAKE_MPS_LOG" >&2; exit 1; }
echo "test_mps_wrapper: all checks passed"
