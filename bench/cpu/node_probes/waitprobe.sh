#!/bin/bash
# Probe c: where the 16-rank CG time goes (local work vs halo waits + dot reductions)
B=.devbin/blast_gpu; D=bench/cpu/sedov3d_box.ini; export OMP_NUM_THREADS=1
mpi() { # tag ranks ex ey ez [mpirun args]
  local tag=$1 n=$2 ex=$3 ey=$4 ez=$5; shift 5
  mpirun -n $n --bind-to core "$@" $B $D "mesh.elements=$ex $ey $ez" "mesh.size=$(python3 -c "m=max($ex,$ey,$ez);print($ex/m,$ey/m,$ez/m)")" time.max_steps=2 output.print_every=100000 output.dir=/tmp/$tag output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/$tag.log 2>&1 || tail -3 /tmp/$tag.log
  python3 -c "
import json; s=json.load(open('/tmp/$tag/summary.json')); t=s['timing']; a=s['step_attempts']; z=s['zones']/$n
f=lambda k: 1e6*t[k]/a/z
print('%-8s ranks %2d  us/zone/attempt: qdata max %.0f min %.0f | cg max %.0f min %.0f | cg_wait max %.0f min %.0f | force_act max %.0f min %.0f | s/step %.3f' % ('$tag', $n, f('qdata_force_max'), f('qdata_force_min'), f('cg_max'), f('cg_min'), f('cg_wait_max'), f('cg_wait_min'), f('force_actions_max'), f('force_actions_min'), t['steps_max']/a))"
  grep -A8 "timing (seconds)" /tmp/$tag.log
}
mpi w1 1 20 20 20
mpi w8 8 40 40 40
mpi w16 16 80 40 40
mpi s16 16 40 40 40
mpi w16b 16 80 40 40
