#!/bin/bash
# The quadrature kernel's autotune cache on the GPU node (from the project root):
#   tests/gpu/autotune_cache.sh [blast_gpu]
# 1. a first run with gpu.autotune=cached tunes and stores its choice; 2. a second run reads
# it (no tuning line); 3. a forged entry with the key of this build naming a shape the
# 255-register variant cannot launch (4 zones x 256 threads) is ignored: the run tunes
# again and ends normally; 4. an entry of another build (other register counts in the key)
# is not used either. Exit 0 when all four hold.
BLAST=${1:-build/app/blast_gpu}
export XDG_CACHE_HOME=$(mktemp -d)
CACHE=$XDG_CACHE_HOME/blast_gpu_autotune.txt
rc=0
run() {  # prints the exit status; 0 if the run tuned the quadrature kernel
  OMP_NUM_THREADS=4 "$BLAST" bench/cpu/sedov3d_box.ini "mesh.elements=8 8 8" time.max_steps=60 \
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
echo "$key 4 256 0 0 0.001" >> "$CACHE"
echo "3. forged entry (4 x 256 threads, 255-register variant)"; run || { echo "  FAIL: used it"; rc=1; }
echo "$(echo "$key" | sed 's/regs=[0-9,]*/regs=1,2,3/') 1 64 8 2 0.001" >> "$CACHE"
echo "4. newest entry from another build"; run && { echo "  FAIL: tuned again (its own entry should be used)"; rc=1; }
[ $rc -eq 0 ] && echo "autotune_cache: PASS" || echo "autotune_cache: FAIL"
rm -rf "$XDG_CACHE_HOME"
exit $rc
