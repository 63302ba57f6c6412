#!/bin/bash
free -m; cat /sys/devices/system/node/node0/meminfo | head -4; cat /proc/cmdline
vm() { egrep '^(pgscan_kswapd|pgscan_direct|pgsteal_kswapd|pgsteal_direct|pswpin|pswpout|pgmajfault|compact_stall|thp_fault_alloc) ' /proc/vmstat | tr '\n' ' '; echo; }
D=bench/cpu/sedov3d_box.ini; export OMP_NUM_THREADS=1
for B in .devbin/blast_gpu .devbin/blast_cpu; do
  vm; (while sleep 2; do free -m | awk '/Mem:/ {print "used " $3 " MB, free " $4 " MB, avail " $7 " MB"}'; done) > /tmp/free.log & W=$!
  mpirun -n 16 --oversubscribe --bind-to core $B $D "mesh.elements=80 40 40" "mesh.size=1 0.5 0.5" time.max_steps=2 output.print_every=100000 output.dir=/tmp/mp output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/mp.log 2>&1
  kill $W; vm; sort -t' ' -k2 -n /tmp/free.log | tail -1
  python3 -c "
import json; s=json.load(open('/tmp/mp/summary.json')); t=s['timing']; a=s['step_attempts']
print('$B w16: s/step %.3f qdata %.3f force_act %.3f cg %.3f' % (t['steps_max']/a, t['qdata_force_max']/a, t['force_actions_max']/a, t['cg_max']/a))"
done
