#!/usr/bin/env python3
"""Every kernel launch in gpu/*.cu is followed (within 8 lines) by BlastCheckKernel(sync,
"<its name>"), so that every CUDA error names its kernel (a launch by LaunchDep(c, kernel,
...) too); a launch through cudaLaunchKernel (a kernel chosen at run time) by a
BlastCheckKernel of any name.
usage: check_kernel_launches.py GPU_DIR"""
import glob
import os
import re
import sys

launch = re.compile(r"\b(\w+)\s*(?:<[^<>;]*>)?\s*<<<|\b(cudaLaunchKernel)\(|"
                    r"\bLaunchDep\(\s*\w+\s*,\s*(\w+)")
bad, n = [], 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.cu"))):
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        m = launch.search(line)
        if not m or line.lstrip().startswith("//"):
            continue
        n += 1
        names = re.findall(r'BlastCheckKernel\((?:[^,()"]+,\s*)?"([^"]+)"\)', "\n".join(lines[i:i + 8]))
        kernel = m.group(1) or m.group(2) or m.group(3)
        if kernel == "cudaLaunchKernel" and names:
            continue
        if not any(name.split("(")[0] == kernel for name in names):
            bad.append("%s:%d: launch of %s without BlastCheckKernel(\"%s\") after it" %
                       (os.path.basename(path), i + 1, kernel, kernel))
print("%d kernel launches checked" % n)
for b in bad:
    print("FAIL " + b)
print("check_kernel_launches: %s" % ("FAIL" if bad or n == 0 else "PASS"))
sys.exit(1 if bad or n == 0 else 0)
