#!/bin/bash
# CPU topology, energy counters and per-core rates with 1, 8, 16 concurrent processes
lscpu | egrep 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L2|L3|Hypervisor|MHz'
echo "siblings: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list) $(cat /sys/devices/system/cpu/cpu8/topology/thread_siblings_list)"
echo "core_ids: $(cat /sys/devices/system/cpu/cpu*/topology/core_id | tr '\n' ' ')"
ls /sys/class/powercap 2>&1 | head -3; ls /dev/cpu/0/msr 2>&1; ls /sys/bus/event_source/devices/ 2>&1 | tr '\n' ' '; echo
cat /proc/sys/kernel/perf_event_paranoid; ls /sys/class/hwmon 2>&1; which ipmitool perf 2>&1 | head -2
for mode in 0 1; do for n in 1 2 4 8 12 16; do
  echo "== mode $mode, $n processes"
  for ((i=0;i<n;i++)); do taskset -c $i .devbin/corebench $mode > /tmp/cb.$i & done; wait
  cat /tmp/cb.* | sort | awk '{print}' | head -16 | awk '{s+=$2; if(min==""||$2<min)min=$2; if($2>max)max=$2} END {printf "per-process min %.2f max %.2f sum %.2f\n", min, max, s}'
  rm -f /tmp/cb.*
done; done
# pairs: cpu0 with cpu k
for k in 1 8; do taskset -c 0 .devbin/corebench 0 > /tmp/p0 & taskset -c $k .devbin/corebench 0 > /tmp/p1; wait; echo "pair 0+$k: $(cat /tmp/p0) | $(cat /tmp/p1)"; done
