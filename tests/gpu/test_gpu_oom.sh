#!/usr/bin/env bash
# Out of GPU memory at setup, on a GPU node:
#   test_gpu_oom.sh BLAST GPU_HOG [OUTDIR]
# 1. the model against the memory the backend really takes (one rank, BLAST_GPU_PROFILE=1);
# 2. with gpu_hog leaving 2 GiB free, 2 ranks on a 48^3 Q2-Q1 box must stop at setup with
#    exit 1 and one message saying how much is needed and free, and what to change;
# 3. a 12^3 box still runs in the 2 GiB left.
set -u
blast=${1:?usage: test_gpu_oom.sh BLAST GPU_HOG [OUTDIR]}
hog=${2:?usage: test_gpu_oom.sh BLAST GPU_HOG [OUTDIR]}
out=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
deck="$here/../../bench/gpu/sedov3d_box.ini"
mkdir -p "$out"
fail=0
check() {  # check NAME CONDITION-STATUS
  if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1"; fail=1; fi
}
run() {  # run NRANKS TAG overrides...
  local n=$1 tag=$2
  shift 2
  timeout 300 mpirun -n "$n" --oversubscribe "$blast" "$deck" output.dir="$out/$tag" \
    output.overwrite=true checkpoint.at_end=false gpu.backend=cuda gpu.autotune=off "$@" >"$out/$tag.out" 2>"$out/$tag.err"
}

# 1. model vs measured: 1 rank, 48^3 zones, 3 steps
BLAST_GPU_PROFILE=1 run 1 measure mesh.elements="48 48 48" time.max_steps=2
check "1 rank 48^3 runs" $?
line=$(grep "GPU memory:" "$out/measure.out")
echo "  $line"
used=$(echo "$line" | sed -n 's/.*GPU memory: \([0-9.]*\) GiB taken.*/\1/p')
est=$(echo "$line" | sed -n 's/.*vectors (at the first update), \([0-9.]*\) GiB estimated.*/\1/p')
awk -v u="${used:-0}" -v e="${est:-0}" 'BEGIN { exit !(u > 0 && e >= u && e <= 1.3 * u) }'
check "estimate ${est:-?} GiB >= used ${used:-?} GiB and within 30 %" $?

# 2. provoked: another process leaves 2 GiB
"$hog" 2 >"$out/hog.txt" 2>&1 &
hog_pid=$!
trap 'kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null' EXIT
for _ in $(seq 1 120); do grep -q holding "$out/hog.txt" 2>/dev/null && break; sleep 0.5; done
cat "$out/hog.txt"
run 2 oom mesh.elements="48 48 48" time.max_steps=2
rc=$?
cat "$out/oom.err"
[ "$rc" -eq 1 ]
check "2 ranks 48^3 with 2 GiB free: exit 1 (got $rc)" $?
grep -q "not enough memory on GPU 0 (.*): the 2 ranks on it need about .* GiB (110592 zones" "$out/oom.err"
check "message: needed, zones" $?
grep -q "but only .* GiB of .* GiB is free" "$out/oom.err" && grep -q "held by CUDA contexts or other processes" "$out/oom.err"
check "message: free, other processes" $?
grep -q "more GPUs (this mesh needs at least [0-9]* GPUs with .* GiB free each" "$out/oom.err" && grep -q "zones fit on this GPU" "$out/oom.err"
check "message: layouts" $?
[ "$(grep -c "not enough memory" "$out/oom.err")" -eq 1 ]
check "printed once" $?
! grep -q "cudaMalloc" "$out/oom.err"
check "stopped before any allocation failed" $?
[ ! -e "$out/oom/summary.json" ]
check "no summary written" $?

# 3. a small mesh still fits next to the other process
run 2 fits mesh.elements="12 12 12" time.max_steps=2
check "2 ranks 12^3 with 2 GiB free runs" $?
exit $fail
