#!/bin/bash
# The mass-matrix kernel (sliced ELLPACK, rows ordered by length within windows of sigma
# rows): per-call time and GB/s (BLAST_GPU_PROFILE), CG iterations and |e| for sigma = 0
# (whole part), 4096 and 256, and optionally another build (BEFORE=path, e.g. the CSR
# kernel of an earlier commit) for comparison. On the GPU node, from the project root:
#   BLAST=... [BEFORE=...] bench/gpu/spmm_layout.sh "48 48 48" ["mesh.refine_parallel=1"]
# Logs in $OUT (default .).
OUT=${OUT:-.}; BLAST=${BLAST:-build/app/blast_gpu}
run() {  # tag binary [env...]
  local tag=$1 bin=$2; shift 2
  env "$@" BLAST_GPU_PROFILE=1 OMP_NUM_THREADS=16 $bin bench/cpu/sedov3d_box.ini "mesh.elements=$ELEMS" $REFINE \
    time.max_steps=19 gpu.backend=cuda gpu.autotune=off output.print_every=100000 output.dir=/tmp/spmm_$tag \
    output.overwrite=true checkpoint.at_end=false > $OUT/spmm_$tag.log 2>&1
  echo "$tag: $(grep 'mass SpM' $OUT/spmm_$tag.log) | e_norm $(python3 -c "import json; s=json.load(open('/tmp/spmm_$tag/summary.json')); print(repr(s['e_norm']), s['cg_iterations'], s['zones'])")"
}
ELEMS=$1; REFINE=$2
[ -n "$BEFORE" ] && run before "$BEFORE"
for S in 0 4096 256; do run sigma$S "$BLAST" BLAST_SELL_SIGMA=$S; done
