#!/bin/bash
# compute-sanitizer memcheck (with leak check) of small runs of the CUDA backend (2D and 3D
# Sedov; 2D Taylor-Green for the energy source; 3D Sedov at 512 points for the force GEMM's
# chunked path), autotuning on so that every kernel variant the tuners time runs too (20-30
# steps: both rounds of the quadrature tuner end, checked)
# (GPU node, from the project root): tests/gpu/memcheck.sh [blast_gpu] [log dir]
# Exit 0 only if every run ends normally, finishes tuning and reports 0 errors.
BLAST=${1:-build/app/blast_gpu}; LOGS=${2:-.}
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
rc=0
run() {  # tag deck [overrides...]
  local tag=$1 deck=$2; shift 2
  OMP_NUM_THREADS=4 "$SAN" --tool memcheck --leak-check full --error-exitcode 9 "$BLAST" "$deck" "$@" \
    gpu.backend=cuda gpu.autotune=online output.dir=/tmp/memcheck_$tag output.overwrite=true \
    checkpoint.at_end=false > "$LOGS/memcheck_$tag.log" 2>&1
  local r=$?
  echo "$tag: exit $r; $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$LOGS/memcheck_$tag.log" | tr '\n' ' ')"
  [ $r -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors" "$LOGS/memcheck_$tag.log" || rc=1
  grep -q "autotune: k_qdata_force" "$LOGS/memcheck_$tag.log" || { echo "$tag: tuning did not end"; rc=1; }
}
run sedov2d inputs/sedov2d.ini time.max_steps=20
run sedov3d bench/cpu/sedov3d_box.ini "mesh.elements=6 6 6" time.max_steps=20
run taylor_green2d inputs/taylor_green2d.ini time.max_steps=20  # the energy source path
run sedov3d_q14 bench/cpu/sedov3d_box.ini "mesh.elements=3 3 3" fem.order_quadrature=14 \
  time.max_steps=30  # 512 points: the force GEMM stages S in chunks
[ $rc -eq 0 ] && echo "memcheck: PASS" || echo "memcheck: FAIL"
exit $rc
