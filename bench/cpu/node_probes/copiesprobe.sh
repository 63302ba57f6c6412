#!/bin/bash
# Probe b: independent single-rank copies (no MPI between them) on 1, 8, 16 cores,
# against the 16-rank MPI run; and pairs of copies on cores (0,k) to expose shared cores.
B=.devbin/blast_gpu; D=bench/cpu/sedov3d_box.ini; export OMP_NUM_THREADS=1
one() { # core dir elements steps
  taskset -c $1 $B $D "mesh.elements=$3" time.max_steps=$4 output.print_every=100000 output.dir=$2 output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > $2.log 2>&1 || echo "run $2 failed"
}
rate() { python3 - "$@" <<'PY'
import json, sys
tag = sys.argv[1]; q = []; c = []; s = []
for d in sys.argv[2:]:
    j = json.load(open(d + '/summary.json')); t = j['timing']; a = j['step_attempts']; z = j['zones']
    q.append(1e6 * t['qdata_force_max'] / a / z); c.append(1e6 * t['cg_max'] / a / z); s.append(t['steps_max'] / a)
print('%-12s copies %2d  qdata us/zone min %.1f max %.1f  cg us/zone min %.1f max %.1f  s/step max %.3f' % (tag, len(q), min(q), max(q), min(c), max(c), max(s)))
PY
}
for n in 1 8 16; do
  dirs=""; for ((i=0;i<n;i++)); do one $i /tmp/cp$n.$i "20 20 20" 2 & dirs="$dirs /tmp/cp$n.$i"; done; wait
  rate copies$n $dirs
done
for k in 1 2 4 7 8 9 12 15; do
  one 0 /tmp/pa0 "12 12 12" 1 & one $k /tmp/pa$k "12 12 12" 1; wait
  rate pair0+$k /tmp/pa0 /tmp/pa$k
done
one 0 /tmp/pl "12 12 12" 1; rate lone12 /tmp/pl
mpirun -n 16 --bind-to core $B $D "mesh.elements=80 40 40" "mesh.size=1 0.5 0.5" time.max_steps=2 output.print_every=100000 output.dir=/tmp/w16 output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/w16.log 2>&1 || tail -3 /tmp/w16.log
python3 -c "
import json; s=json.load(open('/tmp/w16/summary.json')); t=s['timing']; a=s['step_attempts']; z=s['zones']/16
print('mpi w16: qdata %.1f us/zone cg %.1f us/zone s/step %.3f' % (1e6*t['qdata_force_max']/a/z, 1e6*t['cg_max']/a/z, t['steps_max']/a))"
