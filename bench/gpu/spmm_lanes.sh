#!/bin/bash
# k_spmm_dd lanes per row: time (BLAST_GPU_PROFILE) and |e| for L = 32, 16, 8, 4 (on the GPU node, from the
# project root): BLAST=... bench/gpu/spmm_lanes.sh "48 48 48" ["mesh.refine_parallel=2"]; logs in $OUT (default .)
OUT=${OUT:-.}; BLAST=${BLAST:-build/app/blast_gpu}
for L in 32 16 8 4; do
  BLAST_SPMM_LANES=$L BLAST_GPU_PROFILE=1 OMP_NUM_THREADS=16 $BLAST bench/cpu/sedov3d_box.ini "mesh.elements=$1" $2 time.max_steps=19 gpu.backend=cuda gpu.autotune=off output.print_every=100000 output.dir=/tmp/l$L output.overwrite=true checkpoint.at_end=false > $OUT/lanes_$L.log 2>&1
  echo "L=$L: $(grep 'mass SpMV' $OUT/lanes_$L.log) | e_norm $(python3 -c "import json; s=json.load(open('/tmp/l$L/summary.json')); print(repr(s['e_norm']), s['cg_iterations'], s['zones'])")"
done
