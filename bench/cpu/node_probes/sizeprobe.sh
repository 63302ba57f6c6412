#!/bin/bash
# one rank, one step attempt, growing zone count: does the per-zone cost grow with the working set?
B=.devbin/blast_gpu; D=bench/cpu/sedov3d_box.ini; export OMP_NUM_THREADS=1
for e in "20 20 20" "40 40 20" "40 40 40" "80 40 40"; do
  set -- $e; m=$1
  /usr/bin/time -f "maxrss %M KB" taskset -c 3 $B $D "mesh.elements=$e" "mesh.size=$(python3 -c "print($1/$m,$2/$m,$3/$m)")" time.max_steps=0 output.print_every=100000 output.dir=/tmp/sp output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/sp.log 2>/tmp/sp.err
  python3 -c "
import json; s=json.load(open('/tmp/sp/summary.json')); t=s['timing']; a=s['step_attempts']; z=s['zones']
print('1 rank %6d zones: qdata %.1f us/zone  cg %.1f us/zone  step %.3f s  %s' % (z, 1e6*t['qdata_force_max']/a/z, 1e6*t['cg_max']/a/z, t['steps_max']/a, open('/tmp/sp.err').read().strip().splitlines()[-1]))"
done
