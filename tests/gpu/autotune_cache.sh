#!/bin/bash
# The quadrature kernel's autotune cache on the GPU node (from the project root):
#   tests/gpu/autotune_cache.sh [blast_gpu]
# 1. a first run with gpu.autotune=cached tunes and stores its choice; 2. a second run reads
# it (no tuning line); 3. a forged entry with the key of this build naming a shape that
# passes every other filter but the uncapped variant's thread limit (8 zones x 64 threads,
# the GEMM at 128 threads: 512 threads at ~170 registers do not fit an SM's 65536) is
# ignored: the run tunes again and ends normally; 4. with only an entry of another build in
# the cache (other register counts in the key), the run tunes. Exit 0 when all four hold.
# Assumes tuning ends within the run's 60 steps (3D Q2-Q1, 8^3 zones, full assembly: the
# partial path has no tuner). Cache lines: key zpb tpz gtb reg spec ms.
BLAST=${1:-build/app/blast_gpu}
export XDG_CACHE_HOME=$(mktemp -d)
CACHE=$XDG_CACHE_HOME/blast_gpu_autotune.txt
rc=0
run() {  # prints the exit status; 0 if the run tuned the quadrature kernel
  OMP_NUM_THREADS=4 "$BLAST" bench/cpu/sedov3d_box.ini "mesh.elements=8 8 8" time.max_steps=60 fem.assembly=full \
    gpu.backend=cuda gpu.autotune=cached output.dir=$XDG_CACHE_HOME/run output.overwrite=true \
    checkpoint.at_end=false > $XDG_CACHE_HOME/run.log 2>&1
  local r=$?
  echo "  exit $r; $(grep -E 'autotune: k_qdata_force' $XDG_CACHE_HOME/run.log || echo 'no tuning (cache used)')"
  [ $r -eq 0 ] || rc=1
  grep -q "autotune: k_qdata_force" $XDG_CACHE_HOME/run.log
}
echo "1. first run"; run || { echo "  FAIL: did not tune"; rc=1; }
key=$(tail -1 "$CACHE" | cut -d' ' -f1); echo "  cache key: $key"
echo "2. second run"; run && { echo "  FAIL: tuned again"; rc=1; }
echo "$key 8 64 128 0 0 0.001" >> "$CACHE"
echo "3. forged entry (8 x 64 threads, uncapped variant)"; run || { echo "  FAIL: used it"; rc=1; }
echo "$(echo "$key" | sed 's/regs=[0-9,]*/regs=1,2,3,4,5,6,7,8/') 1 64 128 2 0 0.001" > "$CACHE"
echo "4. only an entry of another build"; run || { echo "  FAIL: used it"; rc=1; }
[ $rc -eq 0 ] && echo "autotune_cache: PASS" || echo "autotune_cache: FAIL"
rm -rf "$XDG_CACHE_HOME"
exit $rc
