#!/bin/bash
# 25-second compute-bound loops on 1, 8, 16 cores at once: per-process rate
for n in 1 8 16; do
  for ((i=0;i<n;i++)); do taskset -c $i .devbin/corebench 0 35 > /tmp/lc.$i & done; wait
  cat /tmp/lc.* | awk -v n=$n '{s+=$2; if(min==""||$2<min)min=$2; if($2>max)max=$2} END {printf "%2d processes x ~25 s: per-process min %.2f max %.2f Gflop/s, sum %.1f\n", n, min, max, s}'
  rm -f /tmp/lc.*
done
