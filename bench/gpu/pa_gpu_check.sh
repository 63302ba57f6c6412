#!/bin/bash
# Partial assembly on the CUDA backend, on a GPU node, in one call (docs/architecture.md):
#  1. tests/gpu/pa_device_check.cu (nvcc only): every PA kernel against pa_kernels.h bit
#     for bit, then their times at 3D Q2 64^3/128^3, Q3 64^3, Q4 64^3/100^3;
#  2. if .gpu-run/ holds the MPI binaries (built on the workstation, bundled with
#     shared/tools/gpu-bundle into .gpu-bundle/): the backend conformance test's GPU part
#     and blast_gpu in both modes with BLAST_GPU_PROFILE=1 (|e| must equal the CPU's:
#     3D Sedov blast_energy 2, 19 steps: Q2 8^3 5.4324701048e+02, Q3 6^3 7.3877897199e+02,
#     full and partial alike).
# usage (repo root): bash bench/gpu/pa_gpu_check.sh   (logs in $OUT or /tmp/pa_check)
OUT=${OUT:-/tmp/pa_check}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
nvcc -O3 -arch=sm_90 --fmad=false -std=c++17 -Ibackends/cuda -Ihydro -Ifem -Ibackends/cpu -Ibase -Xptxas -v \
  tests/gpu/pa_device_check.cu -o "$OUT/pdc" 2>"$OUT/ptxas.log"
grep -A1 -E "Compiling entry.*k_pa_(qdata3|mass)" "$OUT/ptxas.log" | grep -E "registers" | head -12
"$OUT/pdc" | tee "$OUT/device_check.log"
[ -x .gpu-run/blast_gpu ] || exit 0
source .gpu-bundle/env.sh
[ -d /work/main/inputs ] || { mkdir -p /work; ln -sfn "$PWD" /work/main; }
timeout 300 .gpu-run/test_backend_conformance --gpu > "$OUT/conf.log" 2>&1
echo "== conformance rc $?"; grep -E "^FAIL" "$OUT/conf.log" | head -20; tail -1 "$OUT/conf.log"
run() {  # name assembly k elements...
  local n=$1 a=$2 k=$3; shift 3
  timeout 200 env BLAST_GPU_PROFILE=1 .gpu-run/blast_gpu bench/gpu/sedov3d_box.ini gpu.backend=cuda \
    fem.assembly=$a fem.order_kinematic=$k fem.order_thermo=$((k - 1)) problem.blast_energy=2.0 \
    "mesh.elements=$*" time.max_steps=19 output.print_every=100000 output.dir=/tmp/o_$n \
    output.overwrite=true > "$OUT/$n.log" 2>&1
  echo "== $n rc $?: $(grep -E '^  \|e\| =' "$OUT/$n.log") $(grep -E 'Major kernels total' "$OUT/$n.log")"
}
run s_full_q2 full 2 8 8 8; run s_pa_q2 partial 2 8 8 8
run s_full_q3 full 3 6 6 6; run s_pa_q3 partial 3 6 6 6
run pa_q2_64 partial 2 64 64 64; run full_q2_64 full 2 64 64 64
run pa_q2_128 partial 2 128 128 128; run full_q2_128 full 2 128 128 128
run pa_q3_64 partial 3 64 64 64; run full_q3_64 full 3 64 64 64
run pa_q4_100 partial 4 100 100 100
for f in pa_q2_64 full_q2_64 pa_q2_128 full_q2_128 pa_q3_64 full_q3_64 pa_q4_100; do
  echo "### $f"; sed -n '/timing (seconds)/,/setup/p' "$OUT/$f.log"
  sed -n '/GPU kernel profile/,/^$/p' "$OUT/$f.log" | head -16
done
