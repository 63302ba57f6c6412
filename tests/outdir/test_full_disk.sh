#!/usr/bin/env bash
# A full file system under [output] dir stops the run at start-up with a clear error:
# a 256 KiB tmpfs (below the 1 MiB blast_gpu requires) is mounted, the run is
# pointed at it, and it must exit 1 naming the full file system, before the setup, having
# written nothing there. Needs root and mount (registered only where a probe mount works).
# usage: test_full_disk.sh BLAST MPIEXEC DECK WORKDIR
set -u
blast=$1 mpiexec=$2 deck=$3 work=$4
mnt=$work/fullfs
mkdir -p "$mnt"
mountpoint -q "$mnt" && umount "$mnt"
mount -t tmpfs -o size=256k tmpfs "$mnt" || { echo "FAIL: cannot mount a tmpfs at $mnt"; exit 1; }
trap 'umount "$mnt"' EXIT
# Fill it up to a few KiB, as a disk that is almost full.
dd if=/dev/zero of="$mnt/filler" bs=4k count=60 2>/dev/null
before=$(ls -A "$mnt")
start=$(date +%s)
out=$("$mpiexec" -n 2 --oversubscribe "$blast" "$deck" output.dir="$mnt/run" 2>&1)
rc=$?
secs=$(( $(date +%s) - start ))
echo "$out" | grep "blast_gpu: error" | head -2
fail=0
[ "$rc" -eq 1 ] || { echo "FAIL: exit code $rc, expected 1"; fail=1; }
echo "$out" | grep -q "full" || { echo "FAIL: the message does not say the file system is full"; fail=1; }
echo "$out" | grep -q "^step " && { echo "FAIL: the run started time steps"; fail=1; }
[ "$(ls -A "$mnt")" = "$before" ] || { echo "FAIL: something was written: $(ls -A "$mnt")"; fail=1; }
echo "exit $rc after ${secs} s"
[ $fail -eq 0 ] && echo "test_full_disk: PASS" || echo "test_full_disk: FAIL"
exit $fail
