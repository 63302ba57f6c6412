#!/bin/bash
# weak-scaling phases of the CPU backend (8000 zones per rank), and 8 ranks next to 8 triad streams
B=.devbin/blast_gpu; D=bench/cpu/sedov3d_box.ini
run() { # tag ranks ex ey ez [cpuset]
  local tag=$1 n=$2; shift 2
  mpirun -n $n --oversubscribe --bind-to core $B $D "mesh.elements=$1 $2 $3" "mesh.size=$(python3 -c "m=max($1,$2,$3);print($1/m,$2/m,$3/m)")" time.max_steps=2 output.print_every=100000 output.dir=/tmp/wp/$tag output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/wp_$tag.log 2>&1 || { echo "$tag failed"; tail -5 /tmp/wp_$tag.log; }
  python3 -c "
import json; s=json.load(open('/tmp/wp/$tag/summary.json')); t=s['timing']; a=s['step_attempts']
print('%-10s ranks %2d zones %6d  s/step %.3f  qdata %.3f  force_act %.3f  cg %.3f  cg_it %d' % ('$tag', $n, s['zones'], t['steps_max']/a, t['qdata_force_max']/a, t['force_actions_max']/a, t['cg_max']/a, s['cg_iterations']))"
}
export OMP_NUM_THREADS=1
run w1 1 20 20 20; run w8 8 40 40 40; run w16 16 80 40 40; run w16r 16 80 40 40; run s16 16 40 40 40
# 8 ranks on cores 0-7 (mpirun binds to 0..7) with 8 triad loops on cores 8-15
for i in 8 9 10 11 12 13 14 15; do taskset -c $i .devbin/corebench 2 40 > /tmp/tl.$i & done
run w8triad 8 40 40 40; wait; cat /tmp/tl.* | awk '{s+=$2} END {print "triad streams total " s " GB/s"}'
