#!/bin/bash
# Does a larger footprint slow the 16-rank run? Transparent huge pages (glibc.malloc.hugetlb=1), a 12 GB
# resident memory hog next to 16 x 4000 and 1 x 8000 zones, and the guest's steal time.
B=.devbin/blast_gpu; D=bench/cpu/sedov3d_box.ini; export OMP_NUM_THREADS=1
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
ls /sys/devices/system/node/; grep -h MemTotal /sys/devices/system/node/node*/meminfo; grep -i "hugepages\|DirectMap" /proc/meminfo
ldd $B | grep libc.so
steal() { awk '/^cpu / {print "user " $2 " sys " $4 " idle " $5 " steal " $9}' /proc/stat; }
run() { # tag ranks ex ey ez [env...]
  local tag=$1 n=$2 ex=$3 ey=$4 ez=$5; shift 5
  steal
  (sleep 15; grep AnonHugePages /proc/meminfo) &
  env "$@" mpirun -n $n --oversubscribe --bind-to core -x GLIBC_TUNABLES $B $D "mesh.elements=$ex $ey $ez" "mesh.size=$(python3 -c "m=max($ex,$ey,$ez);print($ex/m,$ey/m,$ez/m)")" time.max_steps=2 output.print_every=100000 output.dir=/tmp/wp/$tag output.overwrite=true checkpoint.at_end=false gpu.backend=cpu > /tmp/wp_$tag.log 2>&1 || { echo "$tag failed"; tail -5 /tmp/wp_$tag.log; }
  wait; steal
  python3 -c "
import json; s=json.load(open('/tmp/wp/$tag/summary.json')); t=s['timing']; a=s['step_attempts']
print('%-10s ranks %2d zones %6d  s/step %.3f  qdata %.3f  force_act %.3f  cg %.3f  cg_it %d' % ('$tag', $n, s['zones'], t['steps_max']/a, t['qdata_force_max']/a, t['force_actions_max']/a, t['cg_max']/a, s['cg_iterations']))"
}
export GLIBC_TUNABLES=
run w1 1 20 20 20
run w16 16 80 40 40
run w16thp 16 80 40 40 GLIBC_TUNABLES=glibc.malloc.hugetlb=1
run s16 16 40 40 40
python3 -c "
import time; b=b'\1'*(12<<30); time.sleep(60)" & H=$!
sleep 8; free -m | head -2
run s16hog 16 40 40 40
run w1hog 1 20 20 20
kill $H
