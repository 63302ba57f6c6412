#!/bin/sh
# The host code must contain no fused multiply-add instructions (the CPU reference and the
# GPU, built with --fmad=false, agree bit for bit only without them). Usage:
# check_no_fma.sh BINARY...   (x86-64; other architectures pass trivially)
status=0
for bin in "$@"; do
  case "$(uname -m)" in x86_64) ;; *) echo "not x86-64: nothing to check"; exit 0 ;; esac
  command -v objdump >/dev/null || { echo "objdump (binutils) is missing"; exit 1; }
  n=$(objdump -d --no-show-raw-insn "$bin" | grep -cE '\bv?f(n)?m(add|sub)(sub|add)?[0-9]{3}[sp][sd]\b')
  if [ "$n" -ne 0 ]; then
    echo "FAIL: $bin has $n fused multiply-add instructions:"
    objdump -d --no-show-raw-insn "$bin" | grep -E '\bv?f(n)?m(add|sub)(sub|add)?[0-9]{3}[sp][sd]\b' | head -5
    status=1
  else
    echo "$bin: no fused multiply-add instructions"
  fi
done
exit $status
